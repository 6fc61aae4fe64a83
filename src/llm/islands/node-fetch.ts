// node-fetch as a bundle of its own (dist/islands/node-fetch.cjs), loaded with the first request.
export { default } from "node-fetch";
