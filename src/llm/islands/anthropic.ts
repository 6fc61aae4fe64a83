// The Anthropic SDK as a bundle of its own (dist/islands/anthropic.cjs), loaded on the first request.
export { default } from "@anthropic-ai/sdk";
