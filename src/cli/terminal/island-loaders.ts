/**
 * The terminal's islands (tsup.config.ts), each loaded by its first use: the conversation picker's
 * prompts (`@inquirer/prompts`) and execa, which runs the user's editor. A command that opens
 * neither never reads them.
 */
export const loadPrompts = () => import("@inquirer/prompts");
export const loadExeca = () => import("execa");
