// @inquirer/prompts as a bundle of its own (dist/islands/prompts.cjs), loaded when a picker opens.
export { search } from "@inquirer/prompts";
