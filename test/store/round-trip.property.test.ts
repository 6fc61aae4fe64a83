/**
 * Property: any text survives an append and a load unchanged, whatever characters it holds
 * (newlines, U+2028, lone surrogates, NUL), and the log stays one event per line.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { ConversationStore } from "../../src/store/store.js";

let base: string;
let store: ConversationStore;
let counter = 0;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-round-trip-"));
  store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.constantFrom(
    "\n",
    "\r\n",
    "\u2028\u2029",
    "\0",
    "\ud800",
    "\udfff x \ud83d",
    '"}\n{"type":"turn_start"}',
  ),
);

describe("log round trip", () => {
  it("loads exactly the events that were appended", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 4 }), async (pairs) => {
        counter += 1;
        const id = `conv-${counter}`;
        store.create({ id });
        const events: ConversationEvent[] = pairs.flatMap(([question, answer], index) => [
          { type: "turn_start", id: `${id}-s${index}`, ts: "2026-01-01T00:00:00.000Z" },
          { type: "chat_request", id: `${id}-q${index}`, ts: "2026-01-01T00:00:01.000Z", content: question },
          {
            type: "chat_response",
            id: `${id}-a${index}`,
            ts: "2026-01-01T00:00:02.000Z",
            message: answer,
            metadata: { [question.slice(0, 8) || "key"]: answer },
          } as ConversationEvent,
        ]);
        await store.locked(id, "test", (conversation) => conversation.append(events.slice(0, 3)));
        await store.locked(id, "test", (conversation) => conversation.append(events.slice(3)));
        const loaded = store.load(id);
        expect(loaded.warnings).toEqual([]);
        expect(loaded.events).toEqual(events);
        const lines = readFileSync(join(loaded.directory, "events.jsonl"), "utf8").split("\n");
        expect(lines).toHaveLength(1 + events.length + 1);
      }),
      { numRuns: 60 },
    );
  });
});
