/**
 * Conversation locks: waiting, timing out with the holder's name, stale and live holders.
 */
import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, defaultLockTimeout, lockHolder } from "../../src/store/lock.js";
import { ConversationStore } from "../../src/store/store.js";
import { bundleStore, type StoreBundle } from "./helpers/bundle-store.js";
import { startWriter } from "./helpers/child.js";

let bundle: StoreBundle;
let base: string;

beforeAll(async () => {
  bundle = await bundleStore();
});
afterAll(() => bundle?.remove());
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-lock-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const lockPath = (id: string): string => join(base, "locks", `${id}.lock`);

function writeLockFile(id: string, holder: Record<string, unknown>): void {
  mkdirSync(join(base, "locks"), { recursive: true });
  writeFileSync(lockPath(id), `${JSON.stringify(holder)}\n`);
}

/** The pid of a process that has certainly exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

async function timed<T>(action: () => Promise<T>): Promise<{ value?: T; error?: unknown; elapsed: number }> {
  const started = performance.now();
  try {
    const value = await action();
    return { value, elapsed: performance.now() - started };
  } catch (error) {
    return { error, elapsed: performance.now() - started };
  }
}

describe("lock files", () => {
  it("writes a complete holder record and leaves nothing behind on release", async () => {
    const lock = await acquireLock(base, "conv-a", { command: "cxc q" });
    expect(JSON.parse(readFileSync(lockPath("conv-a"), "utf8"))).toMatchObject({
      pid: process.pid,
      host: hostname(),
      command: "cxc q",
    });
    expect(lockHolder(base, "conv-a")?.pid).toBe(process.pid);
    lock.release();
    lock.release(); // releasing twice is harmless
    expect(readdirSync(join(base, "locks"))).toEqual([]);
    expect(lockHolder(base, "conv-a")).toBeUndefined();
  });

  it("makes a second writer wait, then fail naming the holder's pid and command", async () => {
    const holder = startWriter(["hold-lock", bundle.modulePath, base, "conv-a", "5000"]);
    try {
      await holder.waitForLine((line) => line === "locked");
      const result = await timed(() =>
        acquireLock(base, "conv-a", { command: "cxc conversation compact", timeoutMs: 300, pollMs: 20 }),
      );
      expect(result.error).toMatchObject({ code: "lock-timeout" });
      const message = (result.error as Error).message;
      expect(message).toContain(
        `conversation conv-a is locked by test holder (pid ${holder.process.pid}, since `,
      );
      expect((result.error as { hint: string }).hint).toContain(lockPath("conv-a"));
      expect(result.elapsed).toBeGreaterThanOrEqual(290);
    } finally {
      holder.process.kill("SIGKILL");
      await holder.exited;
    }
  });

  it("takes its timeout from CXC_LOCK_TIMEOUT_MS through the store", async () => {
    const store = new ConversationStore(
      { kind: "home", root: base, origin: "test" },
      { CXC_HOME: base, CXC_LOCK_TIMEOUT_MS: "150" },
    );
    const holder = startWriter(["hold-lock", bundle.modulePath, base, "conv-a", "5000"]);
    try {
      await holder.waitForLine((line) => line === "locked");
      const result = await timed(() => store.locked("conv-a", "cxc q", () => "ran"));
      expect(result.error).toMatchObject({ code: "lock-timeout" });
      expect(result.elapsed).toBeGreaterThanOrEqual(140);
      expect(result.elapsed).toBeLessThan(3_000);
    } finally {
      holder.process.kill("SIGKILL");
      await holder.exited;
    }
  });

  it("lets a waiting writer in once the holder releases, not before", async () => {
    const holder = startWriter(["hold-lock", bundle.modulePath, base, "conv-a", "300"]);
    await holder.waitForLine((line) => line === "locked");
    const result = await timed(() => acquireLock(base, "conv-a", { command: "second", timeoutMs: 10_000 }));
    expect(result.error).toBeUndefined();
    expect(result.elapsed).toBeGreaterThanOrEqual(250);
    await holder.waitForLine((line) => line === "released");
    expect(lockHolder(base, "conv-a")).toMatchObject({ pid: process.pid, command: "second" });
    result.value!.release();
    await holder.exited;
  });

  it("recovers the lock of a dead process at once", async () => {
    const pid = await deadPid();
    writeLockFile("conv-a", { pid, host: hostname(), command: "ghost", acquired_at: "2026-01-01T00:00:00Z" });
    const result = await timed(() => acquireLock(base, "conv-a", { command: "alive", timeoutMs: 0 }));
    expect(result.error).toBeUndefined();
    expect(lockHolder(base, "conv-a")).toMatchObject({ pid: process.pid, command: "alive" });
    result.value!.release();
    expect(readdirSync(join(base, "locks"))).toEqual([]);
  });

  it("recovers the lock of a holder killed while holding it", async () => {
    const holder = startWriter(["hold-lock", bundle.modulePath, base, "conv-a", "60000"]);
    await holder.waitForLine((line) => line === "locked");
    holder.process.kill("SIGKILL");
    await holder.exited;
    expect(lockHolder(base, "conv-a")?.pid).toBe(holder.process.pid);
    const lock = await acquireLock(base, "conv-a", { command: "after crash", timeoutMs: 0 });
    expect(lockHolder(base, "conv-a")?.command).toBe("after crash");
    lock.release();
  });

  it("respects a lock held by a live process that is not cxc, until it exits", async () => {
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      writeLockFile("conv-a", {
        pid: sleeper.pid,
        host: hostname(),
        command: "cxc q",
        acquired_at: new Date(Date.now() - 5 * 60_000).toISOString(),
      });
      const blocked = await timed(() => acquireLock(base, "conv-a", { command: "second", timeoutMs: 200 }));
      // When the lock was taken, in words.
      expect((blocked.error as Error).message).toContain(`cxc q (pid ${sleeper.pid}, since 5 minutes ago)`);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.on("exit", resolve));
    }
    const lock = await acquireLock(base, "conv-a", { command: "second", timeoutMs: 0 });
    lock.release();
  });

  it("never steals a lock from another host, even if the pid is unknown here", async () => {
    const pid = await deadPid();
    writeLockFile("conv-a", {
      pid,
      host: "other-host",
      command: "cxc q",
      acquired_at: "2026-01-01T00:00:00Z",
    });
    const result = await timed(() => acquireLock(base, "conv-a", { command: "second", timeoutMs: 100 }));
    expect((result.error as Error).message).toContain(`(pid ${pid} on other-host, since`);
  });

  it("waits on a fresh unreadable lock file but removes one left for long", async () => {
    mkdirSync(join(base, "locks"), { recursive: true });
    writeFileSync(lockPath("conv-a"), "");
    const fresh = await timed(() => acquireLock(base, "conv-a", { command: "second", timeoutMs: 100 }));
    expect((fresh.error as Error).message).toBe("conversation conv-a is locked by another process");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath("conv-a"), old, old);
    const lock = await acquireLock(base, "conv-a", { command: "second", timeoutMs: 0 });
    expect(lockHolder(base, "conv-a")?.command).toBe("second");
    lock.release();
  });

  it("reads CXC_LOCK_TIMEOUT_MS, treating unset, empty and invalid values as the 10 s default", () => {
    expect(defaultLockTimeout({ CXC_LOCK_TIMEOUT_MS: "250" })).toBe(250);
    expect(defaultLockTimeout({ CXC_LOCK_TIMEOUT_MS: "0" })).toBe(0);
    expect(defaultLockTimeout({})).toBe(10_000);
    expect(defaultLockTimeout({ CXC_LOCK_TIMEOUT_MS: "" })).toBe(10_000);
    expect(defaultLockTimeout({ CXC_LOCK_TIMEOUT_MS: "soon" })).toBe(10_000);
    expect(defaultLockTimeout({ CXC_LOCK_TIMEOUT_MS: "-5" })).toBe(10_000);
  });
});
