/**
 * The conversation log on disk: round trips, unknown kinds, torn tails, corrupt lines, versions.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { readLog } from "../../src/store/log.js";
import { ConversationStore } from "../../src/store/store.js";
import { createEventBuilder } from "../helpers/builders.js";
import { caughtCxcError } from "../helpers/errors.js";

let base: string;
let store: ConversationStore;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-store-log-"));
  store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const logPath = (id: string): string => join(base, "conversations", id, "events.jsonl");

describe("create and load", () => {
  it("round-trips every known event kind and the metadata", () => {
    const build = createEventBuilder();
    const events: ConversationEvent[] = [
      ...build.turn("hello", { reasoning: "think", tools: [{ name: "read_file", result: "data" }] }),
      build.configDelta({ "assistant.model.id": "anthropic/claude" }),
      ...build.turn("again"),
      build.compaction({ from: 0, to: 0, summary: "said hello", tools: "strip", note: "why" }),
      build.reset(["e99"]),
    ];
    const meta = store.create({
      id: "conv-a",
      title: "Title",
      createdAt: "2026-01-01T00:00:00.000Z",
      events,
    });
    expect(meta).toMatchObject({ id: "conv-a", title: "Title", event_count: 9, turn_count: 2 });
    const loaded = store.load("conv-a");
    expect(loaded.header).toEqual({
      cxc: "conversation-log",
      version: 1,
      id: "conv-a",
      created_at: "2026-01-01T00:00:00.000Z",
    });
    expect(loaded.events).toEqual(events);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.meta).toEqual(meta);
    expect(loaded.archived).toBe(false);
  });

  it("appends without rewriting: the old bytes stay a prefix of the file", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    const before = readFileSync(logPath("conv-a"));
    const meta = await store.locked("conv-a", "test", (conversation) =>
      conversation.append(build.turn("two"), "2026-02-01T00:00:00.000Z"),
    );
    const after = readFileSync(logPath("conv-a"));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(meta).toMatchObject({ event_count: 6, turn_count: 2, updated_at: "2026-02-01T00:00:00.000Z" });
    expect(store.load("conv-a").events.map((event) => (event as { id: string }).id)).toEqual([
      "e1",
      "e2",
      "e3",
      "e4",
      "e5",
      "e6",
    ]);
  });
});

describe("unknown event kinds", () => {
  const unknownLine =
    '{"type":"future_kind","id":"01FUTURE","ts":"2026-03-01T00:00:00Z","payload":{"nested":[1,"two",{"three":null}]},"x":"ü😀"}';

  it("keeps an unknown line byte-identical through load and further appends", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    appendFileSync(logPath("conv-a"), `${unknownLine}\n`);
    const loaded = store.load("conv-a");
    expect(loaded.warnings).toEqual([]);
    expect(loaded.events[3]).toEqual({ type: "unknown", raw: JSON.parse(unknownLine) });
    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("two")));
    const reloaded = store.load("conv-a");
    expect(reloaded.events).toHaveLength(7);
    expect(reloaded.events[3]).toEqual(loaded.events[3]);
    const lines = readFileSync(logPath("conv-a"), "utf8").split("\n");
    expect(lines[4]).toBe(unknownLine);
  });

  it("writes an unknown event back verbatim when it is copied into another log", () => {
    store.create({ id: "conv-a" });
    appendFileSync(logPath("conv-a"), `${unknownLine}\n`);
    const [unknown] = store.load("conv-a").events;
    store.create({ id: "conv-b", events: [unknown!] });
    expect(readFileSync(logPath("conv-b"), "utf8").split("\n")[1]).toBe(unknownLine);
  });
});

describe("torn tails", () => {
  it("loads a torn last line with a warning, and the next append sets it aside and appends cleanly", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    const intact = readFileSync(logPath("conv-a"));
    const torn = '{"type":"chat_request","id":"e9","ts":"2026-01-01T00:00:09Z","content":"half a lin';
    appendFileSync(logPath("conv-a"), torn);

    const loaded = store.load("conv-a");
    expect(loaded.events).toHaveLength(3);
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]).toMatch(/events\.jsonl: the last line \(\d+ bytes\) was cut off/);
    // Reading never modifies the file.
    expect(readFileSync(logPath("conv-a"), "utf8")).toBe(intact.toString("utf8") + torn);

    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("two")));
    expect(readFileSync(`${logPath("conv-a")}.torn-1`, "utf8")).toBe(torn);
    const after = readFileSync(logPath("conv-a"));
    expect(after.subarray(0, intact.length).equals(intact)).toBe(true);
    const reloaded = store.load("conv-a");
    expect(reloaded.warnings).toEqual([]);
    expect(reloaded.events).toHaveLength(6);
  });

  it("numbers side files so a second torn tail does not overwrite the first", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    appendFileSync(logPath("conv-a"), '{"first":');
    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("two")));
    appendFileSync(logPath("conv-a"), '{"second 😀');
    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("three")));
    expect(readFileSync(`${logPath("conv-a")}.torn-1`, "utf8")).toBe('{"first":');
    expect(readFileSync(`${logPath("conv-a")}.torn-2`, "utf8")).toBe('{"second 😀');
    expect(store.load("conv-a").events).toHaveLength(9);
  });

  it("keeps the exact bytes of a tail torn inside a multi-byte character", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    const partial = Buffer.from('{"content":"😀', "utf8").subarray(0, 13); // cuts the emoji in half
    appendFileSync(logPath("conv-a"), partial);
    expect(store.load("conv-a").warnings).toHaveLength(1);
    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("two")));
    expect(readFileSync(`${logPath("conv-a")}.torn-1`).equals(partial)).toBe(true);
    expect(store.load("conv-a").warnings).toEqual([]);
  });
});

describe("torn tails larger than one read", () => {
  it("sets aside a tail of many chunks exactly, after a log of many chunks", async () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("x".repeat(300_000)) });
    const intact = readFileSync(logPath("conv-a"));
    const torn = Buffer.from(`{"type":"chat_request","content":"${"é".repeat(150_000)}`, "utf8");
    appendFileSync(logPath("conv-a"), torn);
    await store.locked("conv-a", "test", (conversation) => conversation.append(build.turn("after")));
    expect(readFileSync(`${logPath("conv-a")}.torn-1`).equals(torn)).toBe(true);
    expect(readFileSync(logPath("conv-a")).subarray(0, intact.length).equals(intact)).toBe(true);
    expect(store.load("conv-a").events).toHaveLength(6);
  });

  it("refuses to append to a log whose header itself is cut off, leaving it unchanged", async () => {
    store.create({ id: "conv-a" });
    writeFileSync(logPath("conv-a"), '{"cxc":"conversation-log","vers');
    await expect(
      store.locked("conv-a", "test", (conversation) => conversation.append(createEventBuilder().turn("q"))),
    ).rejects.toMatchObject({ code: "corrupt-log" });
    expect(readFileSync(logPath("conv-a"), "utf8")).toBe('{"cxc":"conversation-log","vers');
    expect(existsSync(`${logPath("conv-a")}.torn-1`)).toBe(false);
  });
});

describe("corrupt and unsupported logs", () => {
  it("fails on a corrupt middle line, naming file and line, and leaves the file unchanged", () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: [...build.turn("one"), ...build.turn("two")] });
    const lines = readFileSync(logPath("conv-a"), "utf8").split("\n");
    lines[3] = '{"type":"chat_response","id":"e3","ts":"x","message":'; // line 4: broken JSON
    writeFileSync(logPath("conv-a"), lines.join("\n"));
    const before = readFileSync(logPath("conv-a"));

    const error = caughtCxcError(() => store.load("conv-a"));
    expect(error.code).toBe("corrupt-log");
    expect(error.message).toContain(`${logPath("conv-a")}:4:`);
    expect(error.hint).toMatch(/never rewrites/);
    expect(readFileSync(logPath("conv-a")).equals(before)).toBe(true);
  });

  it("fails on a known kind that does not match its schema, naming the line", () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    appendFileSync(logPath("conv-a"), '{"type":"chat_request","id":"e9","ts":"t"}\n');
    appendFileSync(logPath("conv-a"), '{"type":"turn_start","id":"e10","ts":"t"}\n');
    const before = readFileSync(logPath("conv-a"));
    const error = caughtCxcError(() => readLog(join(base, "conversations", "conv-a")));
    expect(error.code).toBe("corrupt-log");
    expect(error.message).toMatch(/events\.jsonl:5: invalid chat_request event/);
    expect(readFileSync(logPath("conv-a")).equals(before)).toBe(true);
  });

  it("refuses a log from a newer format version with unsupported-version", () => {
    store.create({ id: "conv-a" });
    const text = readFileSync(logPath("conv-a"), "utf8").replace('"version":1', '"version":2');
    writeFileSync(logPath("conv-a"), text);
    const error = caughtCxcError(() => store.load("conv-a"));
    expect(error.code).toBe("unsupported-version");
    expect(error.message).toMatch(/log format 2; this cxc reads up to 1/);
    expect(error.hint).toMatch(/upgrade/);
  });

  it("refuses an event that requires a feature this cxc does not know, changing nothing", () => {
    const build = createEventBuilder();
    store.create({ id: "conv-a", events: build.turn("one") });
    appendFileSync(
      logPath("conv-a"),
      '{"type":"compaction","id":"e9","ts":"t","from_turn":0,"to_turn":0,"requires":["native-summary","tomorrow"],"summary":{"summary":"x"}}\n',
    );
    const before = readFileSync(logPath("conv-a"));
    const error = caughtCxcError(() => store.load("conv-a"));
    expect(error.code).toBe("unsupported-version");
    expect(error.message).toMatch(
      /events\.jsonl:5: a compaction event needs a newer cxc \(it requires "tomorrow", which this cxc does not know\)/,
    );
    expect(error.hint).toBe("upgrade cxc to read this conversation; nothing was changed");
    expect(readFileSync(logPath("conv-a")).equals(before)).toBe(true);
    // An unknown kind that requires nothing new is kept, as before.
    writeFileSync(logPath("conv-a"), before.toString().replace('"tomorrow"', '"native-summary"'));
    expect(store.load("conv-a").events.some((event) => event.type === "compaction")).toBe(true);
  });

  it("fails on a missing or foreign header", () => {
    store.create({ id: "conv-a" });
    writeFileSync(logPath("conv-a"), '{"something":"else"}\n');
    expect(caughtCxcError(() => store.load("conv-a")).message).toMatch(/:1: the header line is not a cxc/);
    writeFileSync(logPath("conv-a"), "");
    expect(caughtCxcError(() => store.load("conv-a")).message).toMatch(/no header line/);
  });

  it("does not create side files or change anything when loading a clean log", () => {
    store.create({ id: "conv-a", events: createEventBuilder().turn("one") });
    store.load("conv-a");
    expect(existsSync(`${logPath("conv-a")}.torn-1`)).toBe(false);
  });
});
