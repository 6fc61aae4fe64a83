/**
 * Finding the terminal to ask questions on.
 *
 * cxc can prompt only when a person is there: stderr is a terminal and so is stdin (or `/dev/tty`
 * opens).
 * Prompts read keys from stdin when it is the terminal, else from `/dev/tty` (so
 * `echo hi | cxc q` can still ask), and are written to stderr. Under a test runner or in a pipeline
 * with no terminal on either side, nothing is asked, so an `ask` tool is refused rather than
 * approved behind the user's back.
 */
import { openSync } from "node:fs";
import { ReadStream } from "node:tty";

/** Where prompts read keys and write text. */
export interface PromptTerminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  /** Releases `/dev/tty` when it was opened. */
  close(): void;
}

/** The terminal to prompt on, or undefined when there is no one to ask. */
export function openPromptTerminal(options: { nonInteractive?: boolean } = {}): PromptTerminal | undefined {
  // Prompts are written to stderr, so it must reach the person.
  if (options.nonInteractive || !process.stderr.isTTY) return undefined;
  if (process.stdin.isTTY) return { input: process.stdin, output: process.stderr, close: () => undefined };
  let descriptor: number;
  try {
    descriptor = openSync("/dev/tty", "r");
  } catch {
    return undefined;
  }
  const input = new ReadStream(descriptor);
  return {
    input: input as unknown as NodeJS.ReadStream,
    output: process.stderr,
    close: () => input.destroy(),
  };
}

/** Reads one keypress in raw mode. Ctrl-C comes back as `\u0003`. */
export function readKey(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    input.setRawMode?.(true);
    input.resume();
    input.once("data", (data: Buffer | string) => {
      input.setRawMode?.(wasRaw ?? false);
      input.pause();
      resolve(typeof data === "string" ? data : data.toString("utf8"));
    });
  });
}
