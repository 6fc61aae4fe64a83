// The OpenAI SDK as a bundle of its own (dist/islands/openai.cjs), loaded on the first request.
export { default } from "openai";
