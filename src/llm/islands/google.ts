// Google's SDK (@google/genai) as a bundle of its own (dist/islands/google.cjs), loaded on the first request.
export { GoogleGenAI } from "@google/genai";
