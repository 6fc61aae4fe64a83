/**
 * The `(y/N)` prompt every yes-or-no question uses (`rm`, `compact --continue`): one key, no Enter,
 * like the tool approval prompt. `y` answers yes; `n`, Enter and Escape answer no (the default);
 * Ctrl-C interrupts; other keys are ignored. Keys typed before the prompt showed never answer it
 * (see `readAnswerKey`).
 */
import { type PromptTerminal, readAnswerKey } from "./tty.js";

/** How a yes-or-no question was answered. */
export type Confirmation = "yes" | "no" | "interrupt";

/** Asks `question` on the terminal; `question` is cxc's own text (it is not sanitized). */
export async function confirmKey(terminal: PromptTerminal, question: string): Promise<Confirmation> {
  terminal.output.write(`${question} (y/N) `);
  for (;;) {
    const key = await readAnswerKey(terminal);
    if (key === "\u0003") {
      terminal.output.write("^C\n");
      return "interrupt";
    }
    if (key === "y" || key === "Y") {
      terminal.output.write("y\n");
      return "yes";
    }
    if (key === "n" || key === "N" || key === "\r" || key === "\n" || key === "\u001b") {
      terminal.output.write("n\n");
      return "no";
    }
  }
}
