// @inquirer/prompts as a bundle of its own (dist/islands/prompts.cjs), loaded when a prompt is shown.
export { confirm } from "@inquirer/prompts";
