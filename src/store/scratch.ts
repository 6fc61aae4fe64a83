/**
 * Scratch files: the copies of summaries `compact` points at and the preview files of the
 * assistant's `compact` tool. They are conveniences to read in an editor, never part of a
 * conversation, and they can hold anything a conversation holds, so they live in ONE private
 * directory of the user and nowhere else:
 *
 *   `$XDG_CACHE_HOME/cxc/scratch/` (when `XDG_CACHE_HOME` is absolute), else `~/.cache/cxc/scratch/`.
 *
 * Both `cxc/` and `cxc/scratch/` are created with mode 0700; an existing one must be a real
 * directory (not a symlink) owned by the user, and loses any group or other permission. A file is
 * created with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600 under a fresh name (a random suffix),
 * so nothing planted at a predictable path is followed and no run overwrites another's file.
 * Files older than a day are removed whenever a new one is written.
 */
import {
  closeSync,
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { nodeCrypto } from "./lazy-crypto.js";
import type { Environment } from "./port.js";

/** Scratch files older than this are removed. */
export const SCRATCH_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** The private scratch directory (not created). */
export function scratchDirectory(env: Environment): string {
  const cache =
    env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : join(env.HOME || homedir(), ".cache");
  return join(cache, "cxc", "scratch");
}

function lstatIfPresent(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Creates `path` (0700) or checks that it is a private directory of this user; see the module comment. */
function ensurePrivateDirectory(path: string): void {
  let stats = lstatIfPresent(path);
  if (stats === undefined) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    stats = lstatSync(path);
  }
  if (stats.isSymbolicLink()) throw new Error(`${path} is a symbolic link, not a directory cxc created`);
  if (!stats.isDirectory()) throw new Error(`${path} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`${path} belongs to another user`);
  if ((stats.mode & 0o077) !== 0) chmodSync(path, 0o700);
}

/** Removes the entries of `directory` older than a day (never a subdirectory). */
function removeOldFiles(directory: string, now: number): void {
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() && now - stats.mtimeMs > SCRATCH_MAX_AGE_MS) unlinkSync(path);
    } catch {
      // Removed meanwhile by another cxc, or not ours to remove: cleaning is best effort.
    }
  }
}

/** Options of `writeScratchFile`. */
export interface ScratchOptions {
  /** Milliseconds since the epoch, for the age of old files (default: now). */
  readonly now?: number;
}

/**
 * Writes `text` to a new private file named `<stem>-<random>.md` and returns its path. Throws (an
 * `Error` naming the problem) when the directory is not private or the file cannot be created;
 * callers treat the file as a convenience and only warn.
 */
export function writeScratchFile(
  env: Environment,
  stem: string,
  text: string,
  options: ScratchOptions = {},
): string {
  const directory = scratchDirectory(env);
  ensurePrivateDirectory(join(directory, ".."));
  ensurePrivateDirectory(directory);
  removeOldFiles(directory, options.now ?? Date.now());
  const safeStem = stem.replace(/[^A-Za-z0-9_.-]/g, "_");
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  for (let attempt = 0; ; attempt++) {
    const path = join(directory, `${safeStem}-${nodeCrypto().randomBytes(4).toString("hex")}.md`);
    let descriptor: number;
    try {
      descriptor = openSync(path, flags, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && attempt < 5) continue;
      throw error;
    }
    try {
      writeSync(descriptor, text.endsWith("\n") ? text : `${text}\n`);
    } finally {
      closeSync(descriptor);
    }
    return path;
  }
}
