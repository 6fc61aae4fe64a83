/**
 * Reading an agent's transcript from a hook: its tail for the last reported usage (a silent hook
 * must not read a 50 MB file to say nothing), or the whole of it to convert. Read only; the agent
 * may be writing its last line meanwhile, which the readers leave out.
 */
import { closeSync, openSync, readSync, fstatSync } from "node:fs";

/** The first tail read, and the most a search for the last usage reads. */
const FIRST_TAIL_BYTES = 64 * 1024;
const MOST_TAIL_BYTES = 4 * 1024 * 1024;

/**
 * Reads growing tails of the file (64 KiB, then 4× more up to 4 MiB) until `find` finds what it
 * looks for in one, or the whole file was read. The first line of a tail that does not start the
 * file is cut there, so `find` sees whole lines only (the last may still be partial).
 */
export function searchTail<T>(path: string, find: (tail: string) => T | undefined): T | undefined {
  const descriptor = openSync(path, "r");
  try {
    const size = fstatSync(descriptor).size;
    for (let bytes = FIRST_TAIL_BYTES; ; bytes *= 4) {
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      readSync(descriptor, buffer, 0, length, size - length);
      let text = buffer.toString("utf8");
      if (length < size) text = text.slice(text.indexOf("\n") + 1);
      const found = find(text);
      if (found !== undefined || length === size || bytes >= MOST_TAIL_BYTES) return found;
    }
  } finally {
    closeSync(descriptor);
  }
}
