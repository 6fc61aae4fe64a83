/**
 * Small file primitives the store is built on: atomic replace and durable append.
 *
 * Atomic replace writes a temporary file beside the target, fsyncs it, renames it over the target
 * and fsyncs the directory, so a reader sees the old bytes or the new bytes, never a mixture.
 * Append writes all its bytes with one `write` and fsyncs before returning, so an event reported
 * as written survives a crash of the process.
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { locateJsonError, MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { CxcError } from "../errors.js";

let temporaryCounter = 0;

/**
 * Creates the directory `path` and the parents it lacks, one level at a time, or throws an error
 * whose message says what stands in the way: a parent that is a file (`… is a file, not a
 * directory`), a file system that refuses new directories (procfs, sysfs). Node 20's `mkdirSync(…,
 * { recursive: true })` spins forever under `/proc` (mkdir answers ENOENT there, and it retries);
 * one level at a time stops at the first refusal.
 */
export function ensureDirectory(path: string): void {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      if (statSync(current).isDirectory()) break;
      throw new Error(`${current} is a file, not a directory`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      missing.push(current);
      const parent = dirname(current);
      if (parent === current) throw error;
      current = parent;
    }
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && statSync(directory).isDirectory()) continue;
      if (code === "ENOENT") {
        throw new Error(`${dirname(directory)} does not take new directories (its file system refuses them)`);
      }
      throw error;
    }
  }
}

/** Replaces `path` with `content` (text is written as UTF-8; bytes are written exactly). */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  temporaryCounter += 1;
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${temporaryCounter}.tmp`);
  const descriptor = openSync(temporary, "w", 0o644);
  try {
    writeAll(descriptor, typeof content === "string" ? Buffer.from(content, "utf8") : content);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // The temporary file is already gone; the original error is the one to report.
    }
    throw error;
  }
  syncDirectory(dirname(path));
}

/**
 * Creates `path` with `content`, atomically, and only when nothing is there: the bytes go to a
 * temporary file beside it, which is then hard-linked to `path` (refused when `path` exists, even
 * if it appeared a moment ago). Throws the system error (`EEXIST` when it exists).
 */
export function createFileAtomic(path: string, content: string): void {
  temporaryCounter += 1;
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${temporaryCounter}.tmp`);
  const descriptor = openSync(temporary, "wx", 0o644);
  try {
    try {
      writeAll(descriptor, Buffer.from(content, "utf8"));
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    linkSync(temporary, path);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // Already gone; nothing to clean.
    }
  }
  syncDirectory(dirname(path));
}

export function appendDurably(path: string, content: string): void {
  const descriptor = openSync(path, "a", 0o644);
  try {
    writeAll(descriptor, Buffer.from(content, "utf8"));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

export function syncDirectory(path: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    fsyncSync(descriptor);
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Writes every byte of `buffer` at the descriptor's position. */
export function writeAll(descriptor: number, buffer: Uint8Array): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(descriptor, buffer, offset, buffer.length - offset);
}

/** The text of `path`, or the error `fail` makes of `cannot read <path>: <the system's reason>`. */
export function readTextOr(path: string, fail: (message: string, cause: unknown) => CxcError): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw fail(`cannot read ${path}: ${(error as Error).message}`, error);
  }
}

/** The error for a file of the store that cannot be read or written, by the system's reason. */
export function unreadable(path: string, error: unknown): CxcError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") {
    return new CxcError("store-unreadable", `permission denied: ${path}`, {
      hint: "check the permissions of the store directory (ls -l) or point CXC_HOME elsewhere",
      cause: error,
    });
  }
  if (code === "EROFS") {
    return new CxcError("store-read-only", `the store is on a read-only filesystem: ${path}`, {
      hint: "point CXC_HOME at a writable directory",
      cause: error,
    });
  }
  if (code === "ENOENT") {
    return new CxcError("store-unreadable", `missing file: ${path}`, {
      hint: "the conversation directory is incomplete; was it removed while cxc ran?",
      cause: error,
    });
  }
  return new CxcError("store-unreadable", `cannot access ${path}: ${(error as Error).message}`, {
    cause: error,
  });
}

/**
 * The JSON of a small file of the store (metadata, a record), or a `corrupt-log` error naming the
 * file, line and column without quoting it. The store's one depth limit (`MAX_JSON_DEPTH`, the
 * same as for imports and log lines) is checked on the text first, so a file nested thousands of
 * levels deep is an error, not a stack overflow in whatever walks it later.
 */
export function parseStoreJson(text: string, path: string, hint: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new CxcError("corrupt-log", `${path}: ${TOO_DEEP}`, { hint });
  }
  try {
    return JSON.parse(text);
  } catch {
    const error = locateJsonError(text);
    const where = error === undefined ? "" : `:${error.line}:${error.column}`;
    throw new CxcError("corrupt-log", `${path}${where}: not valid JSON (${error?.reason ?? "unreadable"})`, {
      hint,
    });
  }
}

/** The reason given for JSON nested deeper than the store's limit. */
export const TOO_DEEP = `nested more than ${MAX_JSON_DEPTH} levels deep, which no conversation needs`;

/** An executable of that name in a directory of `path` (a PATH value), or undefined. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const directory of path.split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there.
    }
  }
  return undefined;
}
