/**
 * The validation stamp beside a log (src/store/log.ts): a log cxc validated and has not changed
 * since loads without the schemas, and any change made outside cxc is validated again.
 */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import {
  type ConversationEvent,
  eventSchemas,
  eventSchemasByKind,
  parseEvent,
} from "../../src/core/conversation/events.js";
import {
  parseLog,
  readLog,
  schemaFingerprint,
  serializeLines,
  VALIDATED_STAMP_FILE,
} from "../../src/store/log.js";
import { ConversationStore } from "../../src/store/store.js";
import { createEventBuilder } from "../helpers/builders.js";
import { caughtCxcError } from "../helpers/errors.js";

let base: string;
let store: ConversationStore;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-log-stamp-"));
  store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const directoryOf = (id: string): string => join(base, "conversations", id);
const stampOf = (id: string): string | undefined => {
  const path = join(directoryOf(id), VALIDATED_STAMP_FILE);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
};

function everyKind(): ConversationEvent[] {
  const build = createEventBuilder();
  return [
    ...build.turn("hello", { reasoning: "think", tools: [{ name: "read_file", result: "data" }] }),
    build.configDelta({ "assistant.model.id": "anthropic/claude" }),
    ...build.turn("again"),
    build.compaction({ from: 0, to: 0, summary: "the first turn", reasoning: true, note: "why" }),
  ];
}

describe("the validation stamp", () => {
  it("is written by a full validation, and a stamped load returns the same events", () => {
    const { id } = store.create({ events: everyKind() });
    expect(stampOf(id)).toBeUndefined();
    const validated = readLog(directoryOf(id));
    const stamp = stampOf(id);
    expect(stamp).toBeDefined();
    const trusted = readLog(directoryOf(id));
    expect(trusted.events).toEqual(validated.events);
    expect(JSON.stringify(trusted.events)).toBe(JSON.stringify(validated.events));
    expect(stampOf(id)).toBe(stamp);
  });

  it("moves along with cxc's own appends, which are validated before they are written", async () => {
    const build = createEventBuilder();
    const { id } = store.create({ events: build.turn("one") });
    readLog(directoryOf(id));
    const before = stampOf(id);
    await store.locked(id, "test", (conversation) => conversation.append(build.turn("two")));
    const after = stampOf(id);
    expect(after).not.toBe(before);
    // The stamp names the file as it is now: a load trusts it and sees both turns.
    const size = statSync(join(directoryOf(id), "events.jsonl")).size;
    expect(after).toContain(`:${size}:`);
    expect(readLog(directoryOf(id)).events).toHaveLength(build.turn("x").length * 2);
    await expect(
      store.locked(id, "test", (conversation) =>
        conversation.append([{ type: "chat_response", id: "x", ts: "t" } as ConversationEvent]),
      ),
    ).rejects.toThrow(/refusing to write an invalid event/);
  });

  it("does not trust a log changed outside cxc: an appended invalid line is caught", () => {
    const { id } = store.create({ events: everyKind() });
    readLog(directoryOf(id));
    appendFileSync(
      join(directoryOf(id), "events.jsonl"),
      `${JSON.stringify({ type: "chat_request", id: "e", ts: "t" })}\n`,
    );
    const error = caughtCxcError(() => readLog(directoryOf(id)));
    expect(error.code).toBe("corrupt-log");
    expect(error.message).toMatch(/events\.jsonl:\d+: invalid chat_request event: "content"/);
  });

  it("does not trust a same-size rewrite that restores the old modification time", () => {
    const { id } = store.create({ events: everyKind() });
    const path = join(directoryOf(id), "events.jsonl");
    readLog(directoryOf(id));
    const stats = statSync(path);
    const text = readFileSync(path, "utf8");
    // Same length, now invalid: `content` becomes a number of the same width.
    const broken = text.replace('"content":"hello"', '"content":1234567');
    expect(broken.length).toBe(text.length);
    writeFileSync(path, broken);
    utimesSync(path, stats.atime, stats.mtime);
    expect(caughtCxcError(() => readLog(directoryOf(id))).code).toBe("corrupt-log");
  });

  it("is not written for a log whose lines are valid but not in canonical form", () => {
    const { id } = store.create({ events: everyKind() });
    const path = join(directoryOf(id), "events.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    // Reorder the keys of one event: still valid, no longer the schema's own output.
    const event = JSON.parse(lines[1]!) as Record<string, unknown>;
    lines[1] = JSON.stringify(Object.fromEntries(Object.entries(event).reverse()));
    writeFileSync(path, lines.join("\n"));
    const first = readLog(directoryOf(id));
    expect(stampOf(id)).toBeUndefined();
    expect(readLog(directoryOf(id)).events).toEqual(first.events);
  });

  it("is not written while the log has a torn tail", () => {
    const { id } = store.create({ events: everyKind() });
    appendFileSync(join(directoryOf(id), "events.jsonl"), '{"type":"turn_st');
    expect(readLog(directoryOf(id)).warnings).toHaveLength(1);
    expect(stampOf(id)).toBeUndefined();
  });

  it("a torn or foreign stamp only means a full validation", () => {
    const { id } = store.create({ events: everyKind() });
    const expected = readLog(directoryOf(id)).events;
    for (const content of ["", "{", '{"log":42}', '{"log":"1:2:3:4"}']) {
      writeFileSync(join(directoryOf(id), VALIDATED_STAMP_FILE), content);
      expect(readLog(directoryOf(id)).events).toEqual(expected);
    }
  });
});

describe("the stamp's schema fingerprint", () => {
  /** A log whose last line is valid JSON but not a valid event, stamped as if it were valid. */
  function stampedInvalidLog(): { id: string; stamp: { log: string; schemas: string } } {
    const { id } = store.create({ events: everyKind() });
    readLog(directoryOf(id));
    appendFileSync(
      join(directoryOf(id), "events.jsonl"),
      `${JSON.stringify({ type: "chat_request", id: "e", ts: "t" })}\n`,
    );
    const stamp = JSON.parse(stampOf(id)!) as { log: string; schemas: string };
    const stats = statSync(join(directoryOf(id), "events.jsonl"), { bigint: true });
    stamp.log = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    return { id, stamp };
  }
  const writeStamp = (id: string, stamp: object): void =>
    writeFileSync(join(directoryOf(id), VALIDATED_STAMP_FILE), JSON.stringify(stamp));

  it("is trusted only under the schemas it names: another fingerprint means a full validation", () => {
    const { id, stamp } = stampedInvalidLog();
    // Under this cxc's schemas the stamp is trusted, so the invalid line goes unseen ...
    writeStamp(id, stamp);
    expect(readLog(directoryOf(id)).events.at(-1)).toMatchObject({ type: "chat_request", id: "e" });
    // ... and a stamp made under other schemas, or before stamps named any, is not.
    for (const other of [{ ...stamp, schemas: "00000000-1" }, { log: stamp.log }]) {
      writeStamp(id, other);
      expect(caughtCxcError(() => readLog(directoryOf(id))).code).toBe("corrupt-log");
    }
  });

  it("a full validation after an upgrade stamps the log under the new fingerprint", () => {
    const { id } = store.create({ events: everyKind() });
    readLog(directoryOf(id));
    const current = JSON.parse(stampOf(id)!) as { log: string; schemas: string };
    expect(current.schemas).toBe(schemaFingerprint(eventSchemasByKind()));
    writeStamp(id, { log: current.log, schemas: "00000000-1" });
    readLog(directoryOf(id));
    expect(JSON.parse(stampOf(id)!)).toEqual(current);
  });

  it("changes when a default, a field, a check or a refinement changes, and only then", () => {
    const EVENT_SCHEMAS = eventSchemasByKind();
    const { ChatResponseSchema, CompactionSchema, CompactionSourceSchema } = eventSchemas();
    const base = schemaFingerprint(EVENT_SCHEMAS);
    expect(schemaFingerprint({ ...EVENT_SCHEMAS })).toBe(base);
    const shape = CompactionSchema._zod.def.shape;
    const variants = {
      "a default": { ...shape, source: z._default(CompactionSourceSchema, "auto") },
      "a new field with a default": { ...shape, pinned: z._default(z.boolean(), false) },
      "a check's limit": { ...shape, note: z.optional(z.string().check(z.maxLength(300))) },
    };
    const fingerprints = Object.entries(variants).map(([change, variant]) => [
      change,
      schemaFingerprint({ ...EVENT_SCHEMAS, compaction: z.looseObject(variant) }),
    ]);
    const refined = z
      .looseObject(ChatResponseSchema._zod.def.shape)
      .check(z.refine((event) => event.message !== undefined));
    fingerprints.push(["a refinement", schemaFingerprint({ ...EVENT_SCHEMAS, chat_response: refined })]);
    for (const [change, fingerprint] of fingerprints)
      expect({ change, fingerprint }).not.toEqual({ change, fingerprint: base });
    expect(new Set(fingerprints.map(([, fingerprint]) => fingerprint)).size).toBe(fingerprints.length);
  });
});

describe("canonical lines", () => {
  it("serializeLines writes each event as the JSON of its validated form", () => {
    const events = everyKind();
    const text = serializeLines(events);
    for (const line of text.trimEnd().split("\n")) {
      const parsed = parseEvent(JSON.parse(line));
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(JSON.stringify(parsed.event)).toBe(line);
    }
  });

  it("a trusted parse and a validating parse of a canonical log agree", () => {
    const header = '{"cxc":"conversation-log","version":1,"id":"x","created_at":"t"}\n';
    const text = header + serializeLines(everyKind()) + '{"type":"from_the_future","id":"f"}\n';
    const validated = parseLog(text, "events.jsonl");
    expect(validated.canonical).toBe(true);
    const trusted = parseLog(text, "events.jsonl", { trusted: true });
    expect(trusted.events).toEqual(validated.events);
  });
});

describe("validation messages", () => {
  it("name the field and what was wrong in the file's own terms, never the schema library's", () => {
    expect(parseEvent({ type: "chat_request", id: "e", ts: "t", content: 4 })).toEqual({
      ok: false,
      error: 'invalid chat_request event: "content" must be a string, not a number',
    });
    expect(parseEvent({ type: "chat_request", ts: "t", content: "hi" })).toEqual({
      ok: false,
      error: 'invalid chat_request event: "id" is missing',
    });
    expect(parseEvent({ type: "chat_response", id: "e", ts: "t", message: "a", reasoning: "b" })).toEqual({
      ok: false,
      error: "invalid chat_response event: chat_response needs exactly one of message, reasoning or data",
    });
    const header = '{"cxc":"conversation-log","version":1,"id":"x","created_at":"t"}\n';
    expect(() => parseLog(`${header}{"type":"turn_start","id":"","ts":"t"}\n`, "events.jsonl")).toThrow(
      /events.jsonl:2: invalid turn_start event: "id" must not be empty$/,
    );
  });
});
