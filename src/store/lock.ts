/**
 * Per-conversation write locks.
 *
 * A lock is a file `locks/<id>.lock` created with O_EXCL and holding who took it (pid, host,
 * command, time). A second writer polls until a deadline and then fails naming the holder. A lock
 * whose process is gone (same host, pid not alive) is stale and recovered. Stealing a stale lock is
 * itself serialised by a short-lived `<id>.lock.steal` file, so two processes recovering the same
 * stale lock cannot delete each other's fresh one. See docs/decisions/002-lock-files.md.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
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

export function defaultLockTimeout(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.CXC_LOCK_TIMEOUT_MS);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_TIMEOUT_MS;
}

/** Takes the lock of conversation `id`, waiting up to the timeout. */
export async function acquireLock(root: string, id: string, options: LockOptions): Promise<HeldLock> {
  const directory = locksDirectory(root);
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${id}.lock`);
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const pollMs = options.pollMs ?? 50;
  for (;;) {
    if (tryCreate(path, options.command)) return heldLock(path);
    const holder = readHolder(path);
    if (holder && isStale(holder)) {
      recoverStale(path, holder);
      continue;
    }
    if (Date.now() >= deadline) throw lockTimeout(id, path, holder);
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
  let descriptor: number;
  try {
    descriptor = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    command,
    acquired_at: new Date().toISOString(),
  };
  try {
    writeSync(descriptor, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(descriptor);
  }
  return true;
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
    // Missing (released meanwhile) or half-written by a holder that is writing it right now.
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

function recoverStale(path: string, holder: LockHolder): void {
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
    return; // Someone else is recovering it; the caller polls again.
  }
  closeSync(descriptor);
  try {
    const current = readHolder(path);
    if (current && current.pid === holder.pid && current.acquired_at === holder.acquired_at) unlinkSync(path);
  } finally {
    unlinkSync(stealPath);
  }
}

function lockTimeout(id: string, path: string, holder: LockHolder | undefined): CxcError {
  const who = holder
    ? `${holder.command} (pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`}, since ${holder.acquired_at})`
    : "another process";
  return new CxcError("lock-timeout", `conversation ${id} is locked by ${who}`, {
    hint: `wait for it to finish and try again; if that process is gone, remove ${path}`,
  });
}
