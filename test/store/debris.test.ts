/**
 * Debris of crashed creates and removals (`conversations/.creating-<id>-<pid>`,
 * `.trash-<id>-<pid>`): removed by the next create or listing once old and its process gone;
 * never while its process lives, never while young.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEBRIS_AGE_MS } from "../../src/store/debris.js";
import { listConversations } from "../../src/store/listing.js";
import { ConversationStore } from "../../src/store/store.js";

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-debris-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  return child.pid!;
}

/** A debris directory with a file in it, modified `ageMs` ago. */
function debris(directory: string, name: string, ageMs: number): string {
  const path = join(directory, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "events.jsonl"), "half a conversation");
  const time = (Date.now() - ageMs) / 1000;
  utimesSync(path, time, time);
  return path;
}

const OLD = DEBRIS_AGE_MS + 60_000;

describe("debris of crashed creates and removals", () => {
  it("the next create removes old debris of dead processes, and keeps a live one's and young ones", async () => {
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      const conversations = join(base, "conversations");
      const dead = deadPid();
      const oldDead = debris(conversations, `.creating-aaa-${dead}`, OLD);
      const oldTrash = debris(base, `.trash-bbb-${dead}`, OLD);
      const youngDead = debris(conversations, `.creating-ccc-${dead}`, 1_000);
      const oldLive = debris(conversations, `.creating-ddd-${live.pid}`, OLD);
      const oldMine = debris(conversations, `.creating-eee-${process.pid}`, OLD);
      const notDebris = debris(conversations, ".keep-me", OLD);
      const store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
      store.create({ id: "fresh" });
      expect(existsSync(oldDead)).toBe(false);
      expect(existsSync(oldTrash)).toBe(false);
      for (const kept of [youngDead, oldLive, oldMine, notDebris]) expect(existsSync(kept), kept).toBe(true);
      expect(store.list().conversations.map(({ meta }) => meta.id)).toEqual(["fresh"]);
    } finally {
      live.kill();
    }
  });

  it("a listing removes old staging directories of dead processes", () => {
    const conversations = join(base, "conversations");
    const oldDead = debris(conversations, `.creating-aaa-${deadPid()}`, OLD);
    const young = debris(conversations, `.creating-bbb-${deadPid()}`, 0);
    expect(listConversations(base)).toEqual({ conversations: [], warnings: [] });
    expect(existsSync(oldDead)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});
