// execa as a bundle of its own (dist/islands/execa.cjs), loaded when a command or editor runs.
export { execa } from "execa";
