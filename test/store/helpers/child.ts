/**
 * Starts writer-process.mjs children and reads their stdout line by line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { WRITER_SCRIPT } from "./bundle-store.js";

/** A running writer child. */
export interface WriterChild {
  readonly process: ChildProcess;
  /** Every complete stdout line so far. */
  readonly lines: string[];
  /** Resolves with the first line (already seen or still to come) that `matches`. */
  waitForLine(matches: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Everything written to stderr, for failure messages. */
  stderr(): string;
}

export function startWriter(args: readonly string[], environment: Record<string, string> = {}): WriterChild {
  const child = spawn(process.execPath, [WRITER_SCRIPT, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", ...environment },
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let pending = "";
  let errorText = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop()!;
    lines.push(...parts);
    for (const listener of listeners) listener();
  });
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    errorText += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // "close" rather than "exit": stdout is fully read by then, so `lines` is final.
    child.on("close", (code, signal) => {
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });
  let closed = false;
  void exited.then(() => {
    closed = true;
  });
  // A killed child closes its end; writing to it then must not crash the test.
  child.stdin!.on("error", () => {});
  const send = (line: string): void => {
    child.stdin!.write(`${line}\n`);
  };
  const waitForLine = (matches: (line: string) => boolean, timeoutMs = 30_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no matching line within ${timeoutMs} ms; stderr: ${errorText}`));
      }, timeoutMs);
      function check(): void {
        const found = lines.find(matches);
        if (found !== undefined || closed) {
          clearTimeout(timer);
          listeners.delete(check);
          if (found !== undefined) resolve(found);
          else reject(new Error(`writer exited without a matching line; stderr: ${errorText}`));
        }
      }
      listeners.add(check);
      check();
    });
  return { process: child, lines, waitForLine, exited, send, stderr: () => errorText };
}
