/**
 * Reads racing moves: readers take no lock, so a conversation may be archived, unarchived or
 * removed between the moment a reader finds its directory and the moment it reads a file there.
 * A reader must then find the conversation again (or report that it is gone), never fail with the
 * system's raw "no such file" of a path that has just moved.
 *
 * A child process (writer-process.mjs `archive-toggle`) archives and unarchives one conversation
 * as fast as it can while this process reads it every way the port offers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationStore } from "../../src/store/store.js";
import { bundleStore, type StoreBundle } from "./helpers/bundle-store.js";
import { startWriter } from "./helpers/child.js";

let bundle: StoreBundle;
let base: string;

beforeAll(async () => {
  bundle = await bundleStore();
  base = mkdtempSync(join(tmpdir(), "cxc-races-"));
});
afterAll(() => {
  bundle?.remove();
  rmSync(base, { recursive: true, force: true });
});

const TOGGLES = 100;

describe("reads racing archive and unarchive", () => {
  it("every read finds the conversation wherever it is at that moment", async () => {
    const store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
    const id = "moving";
    store.create({
      id,
      title: "moves",
      events: [
        { type: "turn_start", id: "01JRACE0000000000000000001", ts: "2026-01-01T00:00:00.000Z" },
        {
          type: "chat_request",
          id: "01JRACE0000000000000000002",
          ts: "2026-01-01T00:00:00.000Z",
          content: "hi",
        },
      ],
    });
    const mover = startWriter(["archive-toggle", bundle.modulePath, base, id, String(TOGGLES)], {
      CXC_LOCK_TIMEOUT_MS: "30000",
    });
    await mover.waitForLine((line) => line === "ready");
    const failures = new Map<string, number>();
    let reads = 0;
    const attempt = (what: string, read: () => unknown): void => {
      reads += 1;
      try {
        read();
      } catch (error) {
        const message = `${what}: ${(error as Error).message}`;
        failures.set(message, (failures.get(message) ?? 0) + 1);
      }
    };
    let done = false;
    void mover.exited.then(() => {
      done = true;
    });
    while (!done) {
      attempt("load", () => {
        const loaded = store.load(id);
        expect(loaded.events).toHaveLength(2);
        expect(loaded.meta.title).toBe("moves");
      });
      attempt("readMeta", () => store.readMeta(id));
      attempt("advisorState", () => store.advisorState(id));
      attempt("reviewSource", () => store.reviewSource(id));
      attempt("list", () => {
        const live = store.list();
        const archived = store.list({ archived: true });
        expect([...live.warnings, ...archived.warnings]).toEqual([]);
      });
      // Let the mover run: reads and moves take turns rather than one starving the other.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const exit = await mover.exited;
    expect(exit.code, mover.stderr()).toBe(0);
    expect(Object.fromEntries(failures), `${reads} reads`).toEqual({});
    expect(reads).toBeGreaterThan(100);
  }, 60_000);
});
