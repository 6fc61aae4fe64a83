/**
 * Reading an agent's transcript from a hook. The path comes from the agent's hook input, so it is
 * checked before anything is read, and what is read is bounded in bytes, never by refusing a big
 * file:
 *
 * - Only a regular file is read. It is opened without waiting (`O_NONBLOCK`: a FIFO would
 *   otherwise block until someone writes to it) and checked on the open descriptor: a device
 *   (`/dev/zero` never ends), a FIFO or a socket is refused at once.
 * - `searchTail` reads growing tails (64 KiB, then 4× more up to 4 MiB) for what the silent path
 *   looks for (the last reported usage), so a silent hook does not read a 50 MB file to say nothing.
 * - `readTranscript` reads the whole file up to `TRANSCRIPT_MAX_BYTES` (16 MiB); past that, its
 *   last 16 MiB from a line's start (and, when asked, its first record too: a Codex rollout's
 *   `session_meta`). A transcript of hundreds of MB still gets its restore and advice, from its
 *   most recent turns; the caller says so in the log.
 *
 * Read only; the agent may be writing its last line meanwhile, which the readers leave out.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/** The first tail read, and the most a search for the last usage reads. */
const FIRST_TAIL_BYTES = 64 * 1024;
const MOST_TAIL_BYTES = 4 * 1024 * 1024;

/** The most of a transcript a hook converts: its end, from a line's start. */
export const TRANSCRIPT_MAX_BYTES = 16 * 1024 * 1024;

/** The most read for a first record kept in front of a tail (a rollout's `session_meta`). */
const HEAD_MAX_BYTES = 1024 * 1024;

/** What kind of file a descriptor's stats describe, for the refusal. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** Opens a transcript: a regular file, or an error saying what it is instead. */
function openTranscript(path: string): { descriptor: number; size: number } {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // A socket cannot be opened at all (ENXIO): say what it is rather than the system's words.
    if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
    throw new Error(`the transcript ${path} is ${kindOf(statSync(path))}, not a regular file; not read`);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile())
      throw new Error(`the transcript ${path} is ${kindOf(stats)}, not a regular file; not read`);
    return { descriptor, size: stats.size };
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
}

/** `length` bytes of the file from `position` (fewer if it shrank meanwhile). */
function readBytes(descriptor: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(descriptor, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** The bytes after the first line break (a tail's first line may start before it). */
function fromLineStart(buffer: Buffer): Buffer {
  const newline = buffer.indexOf(0x0a);
  return newline < 0 ? buffer.subarray(buffer.length) : buffer.subarray(newline + 1);
}

/**
 * Reads growing tails of the file (64 KiB, then 4× more up to 4 MiB) until `find` finds what it
 * looks for in one, or the whole file was read. The first line of a tail that does not start the
 * file is cut there, so `find` sees whole lines only (the last may still be partial).
 */
export function searchTail<T>(path: string, find: (tail: string) => T | undefined): T | undefined {
  const { descriptor, size } = openTranscript(path);
  try {
    for (let bytes = FIRST_TAIL_BYTES; ; bytes *= 4) {
      const length = Math.min(size, bytes);
      let buffer = readBytes(descriptor, size - length, length);
      if (length < size) buffer = fromLineStart(buffer);
      const found = find(buffer.toString("utf8"));
      if (found !== undefined || length === size || bytes >= MOST_TAIL_BYTES) return found;
    }
  } finally {
    closeSync(descriptor);
  }
}

/** A transcript as a hook reads it. */
export interface TranscriptText {
  readonly text: string;
  /** The file's size in bytes. */
  readonly size: number;
  /** Bytes left out before the tail (0: the whole file was read). */
  readonly skipped: number;
}

/**
 * The transcript's text: all of it up to `maxBytes`, else its last `maxBytes` from a line's start,
 * after its first non-blank line when `keepHead` (see the module comment).
 */
export function readTranscript(
  path: string,
  options: { readonly maxBytes?: number; readonly keepHead?: boolean } = {},
): TranscriptText {
  const maxBytes = options.maxBytes ?? TRANSCRIPT_MAX_BYTES;
  const { descriptor, size } = openTranscript(path);
  try {
    if (size <= maxBytes) {
      const whole = readBytes(descriptor, 0, size);
      return { text: whole.toString("utf8"), size, skipped: 0 };
    }
    let head: Buffer = Buffer.alloc(0);
    if (options.keepHead === true) {
      const start = readBytes(descriptor, 0, Math.min(HEAD_MAX_BYTES, size - maxBytes));
      const firstRecord = /^[\s]*[^\n]*\n/.exec(start.toString("latin1"));
      if (firstRecord !== null) head = start.subarray(0, firstRecord[0].length);
    }
    const tail = fromLineStart(readBytes(descriptor, size - maxBytes, maxBytes));
    const text = Buffer.concat([head, tail]).toString("utf8");
    return { text, size, skipped: size - head.length - tail.length };
  } finally {
    closeSync(descriptor);
  }
}
