/**
 * Per-conversation write locks.
 *
 * A lock is a file `locks/<id>.lock` created with O_EXCL and holding who took it (pid, host,
 * command, time). A second writer polls until a deadline and then fails naming the holder. A lock
 * whose process is gone (same host, pid not alive) is stale and recovered. Stealing a stale lock is
 * itself serialised by a short-lived `<id>.lock.steal` file, so two processes recovering the same
 * stale lock cannot delete each other's fresh one. A lock file is born complete (written beside it,
 * then hard-linked into place), so a holder killed at any moment leaves a lock naming a dead pid,
 * never an empty file nobody can attribute. See docs/decisions/002-lock-files.md.
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { formatRelativeTime } from "../core/present/relative-time.js";
import { CxcError } from "../errors.js";
import { locksDirectory } from "./paths.js";

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  readonly acquired_at: string;
}

export interface LockOptions {
  /** What the holder is doing, shown to a waiting writer ("cxc q", "cxc conversation compact"). */
  readonly command: string;
  /** How long to wait for a held lock, in milliseconds. */
  readonly timeoutMs?: number;
  readonly pollMs?: number;
}

export interface HeldLock {
  readonly path: string;
  release(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const STEAL_FILE_STALE_MS = 5_000;
/** An unreadable lock file older than this is debris (from an older cxc or a crash), not a lock. */
const UNREADABLE_LOCK_STALE_MS = 5_000;

let temporaryCounter = 0;

/** The lock timeout from `CXC_LOCK_TIMEOUT_MS` (milliseconds); unset, empty or invalid → 10 s. */
export function defaultLockTimeout(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.CXC_LOCK_TIMEOUT_MS?.trim();
  // Number("") is 0: an empty variable must mean "the default", not "do not wait at all".
  if (!text) return DEFAULT_TIMEOUT_MS;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_TIMEOUT_MS;
}

/** Takes the lock of conversation `id`, waiting up to the timeout. */
export async function acquireLock(root: string, id: string, options: LockOptions): Promise<HeldLock> {
  const directory = locksDirectory(root);
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${id}.lock`);
  // A monotonic clock: a wall-clock jump must not end (or stretch) the wait.
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const pollMs = options.pollMs ?? 50;
  for (;;) {
    if (tryCreate(path, options.command)) return heldLock(path);
    const holder = readHolder(path);
    // When another process is recovering the same stale lock, fall through and wait a poll
    // interval instead of spinning (and keep honouring the deadline).
    if (holder && isStale(holder) && recoverStale(path, holder)) continue;
    if (!holder && recoverUnreadable(path)) continue;
    if (performance.now() >= deadline) throw lockTimeout(id, path, holder);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Runs `action` while holding the lock of conversation `id`. */
export async function withLock<T>(
  root: string,
  id: string,
  options: LockOptions,
  action: () => T | Promise<T>,
): Promise<T> {
  const lock = await acquireLock(root, id, options);
  try {
    return await action();
  } finally {
    lock.release();
  }
}

/** Who holds the lock of `id` right now, if anyone (stale holders included). */
export function lockHolder(root: string, id: string): LockHolder | undefined {
  return readHolder(join(locksDirectory(root), `${id}.lock`));
}

function tryCreate(path: string, command: string): boolean {
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    command,
    acquired_at: new Date().toISOString(),
  };
  const content = `${JSON.stringify(holder)}\n`;
  temporaryCounter += 1;
  const temporary = `${path}.${process.pid}.${temporaryCounter}.tmp`;
  writeFileSync(temporary, content, { mode: 0o644 });
  try {
    // link() fails with EEXIST when the lock is taken, like O_EXCL, but the lock appears with its
    // content already in it: no window in which a crash leaves an empty, unattributable lock.
    linkSync(temporary, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // Filesystems without hard links: fall back to O_EXCL and write the holder right after.
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS")
      return createExclusive(path, content);
    throw error;
  } finally {
    removeQuietly(temporary);
  }
}

function createExclusive(path: string, content: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(descriptor, content);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function heldLock(path: string): HeldLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    try {
      unlinkSync(path);
    } catch {
      // Already removed (for example by a user clearing a lock by hand): nothing to release.
    }
  };
  return { path, release };
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number") return undefined;
    return {
      pid: parsed.pid,
      host: String(parsed.host ?? ""),
      command: String(parsed.command ?? "cxc"),
      acquired_at: String(parsed.acquired_at ?? ""),
    };
  } catch {
    // Missing (released meanwhile), or half-written by the O_EXCL fallback or an older cxc.
    return undefined;
  }
}

function isStale(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Removes a stale lock under the steal guard; false when another process is already at it. */
function recoverStale(path: string, holder: LockHolder): boolean {
  return withStealGuard(path, () => {
    const current = readHolder(path);
    if (current && current.pid === holder.pid && current.acquired_at === holder.acquired_at)
      removeQuietly(path);
  });
}

/**
 * Removes a lock file that has stayed unreadable (empty or not JSON) for a while: debris of a
 * crash in an older cxc, or of the O_EXCL fallback, that would otherwise block writers forever.
 */
function recoverUnreadable(path: string): boolean {
  let first: ReturnType<typeof statSync>;
  try {
    first = statSync(path);
  } catch {
    return true; // Released meanwhile: try again at once.
  }
  if (Date.now() - first.mtimeMs <= UNREADABLE_LOCK_STALE_MS) return false;
  return withStealGuard(path, () => {
    const current = statSync(path, { throwIfNoEntry: false });
    if (current && current.ino === first.ino && readHolder(path) === undefined) removeQuietly(path);
  });
}

function withStealGuard(path: string, action: () => void): boolean {
  const stealPath = `${path}.steal`;
  try {
    if (Date.now() - statSync(stealPath).mtimeMs > STEAL_FILE_STALE_MS) unlinkSync(stealPath);
  } catch {
    // No steal in progress.
  }
  let descriptor: number;
  try {
    descriptor = openSync(stealPath, "wx");
  } catch {
    return false; // Someone else is recovering it; the caller polls again.
  }
  closeSync(descriptor);
  try {
    action();
  } finally {
    removeQuietly(stealPath);
  }
  return true;
}

function lockTimeout(id: string, path: string, holder: LockHolder | undefined): CxcError {
  const who = holder
    ? `${holder.command} (pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`}, since ${formatRelativeTime(holder.acquired_at, Date.now())})`
    : "another process";
  return new CxcError("lock-timeout", `conversation ${id} is locked by ${who}`, {
    hint: `wait for it to finish and try again; if that process is gone, remove ${path}`,
  });
}
