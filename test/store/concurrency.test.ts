/**
 * Concurrent writers: twenty processes append to one conversation at once, through its lock.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationStore } from "../../src/store/store.js";
import { bundleStore, type StoreBundle } from "./helpers/bundle-store.js";
import { startWriter } from "./helpers/child.js";

const WRITERS = 20;
const TURNS_PER_WRITER = 10;
const EVENTS_PER_TURN = 2;

let bundle: StoreBundle;
let base: string;

beforeAll(async () => {
  bundle = await bundleStore();
  base = mkdtempSync(join(tmpdir(), "cxc-concurrency-"));
});
afterAll(() => {
  bundle?.remove();
  rmSync(base, { recursive: true, force: true });
});

describe("concurrent writers", () => {
  it(`${WRITERS} processes appending at once leave every event, whole and in turn order`, async () => {
    const store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
    store.create({ id: "shared" });
    const writers = Array.from({ length: WRITERS }, (_, index) =>
      startWriter(
        ["append-count", bundle.modulePath, base, "shared", String(TURNS_PER_WRITER), `w${index}`],
        {
          CXC_LOCK_TIMEOUT_MS: "60000",
        },
      ),
    );
    const exits = await Promise.all(writers.map((writer) => writer.exited));
    exits.forEach((exit, index) => {
      expect(exit.code, writers[index]!.stderr()).toBe(0);
      expect(writers[index]!.lines).toContain("done");
    });

    const total = WRITERS * TURNS_PER_WRITER * EVENTS_PER_TURN;
    const text = readFileSync(join(base, "conversations", "shared", "events.jsonl"), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    expect(lines).toHaveLength(1 + total);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const loaded = store.load("shared");
    expect(loaded.warnings).toEqual([]);
    expect(loaded.events).toHaveLength(total);
    // Each append is one turn: its two events must sit together, and each writer's turns in order.
    const nextTurnOf = new Map<string, number>();
    for (let index = 0; index < total; index += EVENTS_PER_TURN) {
      const start = loaded.events[index]!;
      const request = loaded.events[index + 1]!;
      expect(start.type).toBe("turn_start");
      expect(request.type).toBe("chat_request");
      const [writer, turn] = (request as { content: string }).content.split(":") as [string, string];
      expect(Number(turn)).toBe(nextTurnOf.get(writer) ?? 0);
      nextTurnOf.set(writer, Number(turn) + 1);
    }
    expect(nextTurnOf.size).toBe(WRITERS);
    for (const count of nextTurnOf.values()) expect(count).toBe(TURNS_PER_WRITER);

    expect(loaded.meta.event_count).toBe(total);
    expect(loaded.meta.turn_count).toBe(WRITERS * TURNS_PER_WRITER);
    expect(readdirSync(join(base, "locks"))).toEqual([]);
    // The load above validated the whole log, so it left its validation stamp; nothing else is left over.
    expect(readdirSync(loaded.directory).sort()).toEqual([
      "events.jsonl",
      "events.validated.json",
      "meta.json",
    ]);
  }, 60_000);
});
