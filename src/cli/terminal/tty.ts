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

/** How long to wait for the terminal's answer to the position query before reading keys anyway. */
const SYNC_TIMEOUT_MS = 500;
/** A cursor position report (`ESC [ row ; column R`), the terminal's answer to `ESC [ 6 n`. */
const POSITION_REPORT = /\u001b\[\d+;\d+R/;

/**
 * Reads the one key pressed after the prompt showed, in raw mode. Ctrl-C comes back as `\u0003`.
 *
 * Keys typed before the prompt showed (typed ahead while the model was still writing) must not
 * answer it. So the terminal is asked for the cursor position right after the prompt: its answer
 * queues behind whatever was typed ahead, and everything before it is discarded (a terminal that
 * never answers is waited for half a second). Text that arrives in one piece (a paste) is not a
 * key and is ignored too.
 */
export function readAnswerKey(terminal: PromptTerminal): Promise<string> {
  const { input, output } = terminal;
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    input.setRawMode?.(true);
    let synced = false;
    let early = "";
    const timer = setTimeout(() => {
      synced = true;
      early = "";
    }, SYNC_TIMEOUT_MS);
    const finish = (key: string): void => {
      clearTimeout(timer);
      input.off("data", onData);
      input.setRawMode?.(wasRaw ?? false);
      input.pause();
      resolve(key);
    };
    const accept = (text: string): void => {
      if (text.includes("\u0003")) finish("\u0003");
      else if ([...text].length === 1) finish(text);
    };
    const onData = (data: Buffer | string): void => {
      const text = typeof data === "string" ? data : data.toString("utf8");
      if (synced) {
        // A late position report (after the timeout) is not a key either.
        accept(text.replace(POSITION_REPORT, ""));
        return;
      }
      early += text;
      const report = POSITION_REPORT.exec(early);
      if (report === null) return;
      synced = true;
      const after = early.slice(report.index + report[0].length);
      early = "";
      if (after.length > 0) accept(after);
    };
    input.on("data", onData);
    input.resume();
    output.write("\u001b[6n");
  });
}
