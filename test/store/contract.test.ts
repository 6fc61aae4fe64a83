/**
 * The store port's promises (src/store/port.ts), one suite run against both implementations: the
 * file store in a temporary directory and the memory store. Whatever a test of the shell learns
 * from the memory store holds for the files the CLI writes.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import {
  assertNoOpenReview,
  createMemoryStore,
  type Environment,
  readOnly,
  type Store,
} from "../../src/store/index.js";
import { ConversationStore } from "../../src/store/store.js";
import { createEventBuilder } from "../helpers/builders.js";
import { caughtCxcError } from "../helpers/errors.js";

/** Opens handles on one fresh store; every handle of one test sees the same conversations. */
interface Implementation {
  readonly name: string;
  open(env?: Environment): Promise<Store>;
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function fileImplementation(): Implementation & { root: string } {
  const root = mkdtempSync(join(tmpdir(), "cxc-contract-"));
  directories.push(root);
  return {
    name: "file",
    root,
    open: async (env = {}) =>
      new ConversationStore({ kind: "home", root, origin: "test" }, { CXC_HOME: root, ...env }),
  };
}

function memoryImplementation(): Implementation {
  let first: Store | undefined;
  return {
    name: "memory",
    open: async (env = {}) => {
      const store = await createMemoryStore(first === undefined ? { env } : { env, sharing: first });
      first ??= store;
      return store;
    },
  };
}

const INVALID_EVENT = {
  type: "chat_request",
  id: "bad-1",
  ts: "2026-01-01T00:00:00.000Z",
  content: 42,
} as unknown as ConversationEvent;

describe.each([
  ["file", fileImplementation],
  ["memory", memoryImplementation],
] as const)("the %s store", (name, implementation) => {
  const build = createEventBuilder();

  it("creates a conversation with its events and counts, and loads them as stored", async () => {
    const store = await implementation().open();
    const events = [...build.turn("one"), ...build.turn("two", { tools: [{ name: "read", result: "x" }] })];
    const meta = store.create({
      id: "conv-a",
      title: "A",
      events,
      createdAt: "2026-01-01T00:00:00.000Z",
      extra: { labels: { team: "x" } },
    });
    expect(meta).toMatchObject({
      id: "conv-a",
      title: "A",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      event_count: events.length,
      turn_count: 2,
      labels: { team: "x" },
    });
    const loaded = store.load("conv-a");
    expect(loaded.events).toEqual(events);
    expect(loaded.header).toMatchObject({
      cxc: "conversation-log",
      id: "conv-a",
      created_at: meta.created_at,
    });
    expect(loaded).toMatchObject({ archived: false, warnings: [] });
    expect(store.readMeta("conv-a")).toEqual(meta);
    expect(store.locate("conv-a")).toMatchObject({ archived: false });
    expect(store.locate("conv-x")).toBeUndefined();
  });

  it("gives a fresh id to a conversation created without one", async () => {
    const store = await implementation().open();
    const first = store.create();
    const second = store.create();
    expect(first.id).toMatch(/^[0-9a-z]{13}$/);
    expect(second.id).not.toBe(first.id);
    expect(
      store
        .ids()
        .map((entry) => entry.id)
        .sort(),
    ).toEqual([first.id, second.id].sort());
  });

  it("creates all or nothing: a bad id, an existing id or an invalid event leaves no trace", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a" });
    expect(caughtCxcError(() => store.create({ id: "conv-a" })).message).toBe(
      "conversation conv-a already exists",
    );
    expect(caughtCxcError(() => store.create({ id: "../escape" })).code).toBe("usage");
    expect(() => store.create({ id: "conv-b", events: [...build.turn("ok"), INVALID_EVENT] })).toThrow(
      /invalid event/,
    );
    expect(store.locate("conv-b")).toBeUndefined();
    expect(store.ids()).toEqual([{ id: "conv-a", archived: false }]);
  });

  it("stages a conversation batch by batch: unseen until committed, counted, discarded without a trace", async () => {
    const implemented = implementation();
    const store = await implemented.open();
    const hidden = () =>
      "root" in implemented
        ? readdirSync(join(implemented.root as string, "conversations")).filter((name) =>
            name.startsWith("."),
          )
        : [];
    const [one, two] = [build.turn("one"), build.turn("two")];
    const staged = store.stage({
      id: "conv-s",
      createdAt: "2026-01-01T00:00:00.000Z",
      extra: { origin: "x" },
    });
    staged.write(one);
    expect(store.locate("conv-s")).toBeUndefined();
    expect(store.ids()).toEqual([]);
    staged.write([]);
    staged.write(two);
    expect(() => staged.write([INVALID_EVENT])).toThrow(/invalid event/);
    expect(staged.eventCount).toBe(one.length + two.length);
    const meta = staged.commit({ title: "S", updatedAt: "2026-01-03T00:00:00.000Z" });
    expect(meta).toMatchObject({
      id: "conv-s",
      title: "S",
      origin: "x",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-03T00:00:00.000Z",
      event_count: one.length + two.length,
      turn_count: 2,
    });
    expect(store.load("conv-s").events).toEqual([...one, ...two]);
    expect(store.readMeta("conv-s")).toEqual(meta);
    staged.discard();
    expect(store.locate("conv-s")).toMatchObject({ archived: false });

    const dropped = store.stage({ id: "conv-t" });
    dropped.write(one);
    dropped.discard();
    expect(store.locate("conv-t")).toBeUndefined();
    expect(() => dropped.write(two)).toThrow(/no longer being written/);
    expect(caughtCxcError(() => store.stage({ id: "conv-s" })).message).toBe(
      "conversation conv-s already exists",
    );

    const raced = store.stage({ id: "conv-u" });
    raced.write(one);
    store.create({ id: "conv-u" });
    expect(caughtCxcError(() => raced.commit()).message).toBe("conversation conv-u already exists");
    expect(store.load("conv-u").events).toEqual([]);
    expect(hidden()).toEqual([]);
  });

  it("only appends: events follow the stored ones, counts and time move, a bad batch appends nothing", async () => {
    const store = await implementation().open();
    const first = build.turn("one");
    store.create({ id: "conv-a", events: first, createdAt: "2026-01-01T00:00:00.000Z" });
    const revision = store.revision("conv-a");
    expect(store.revision("conv-a")).toBe(revision);
    const second = build.turn("two");
    const meta = await store.locked("conv-a", "test", (conversation) =>
      conversation.append(second, "2026-01-02T00:00:00.000Z"),
    );
    expect(meta).toMatchObject({ updated_at: "2026-01-02T00:00:00.000Z", event_count: 6, turn_count: 2 });
    expect(store.readMeta("conv-a")).toEqual(meta);
    expect(store.load("conv-a").events).toEqual([...first, ...second]);
    expect(store.revision("conv-a")).not.toBe(revision);

    const before = store.revision("conv-a");
    await expect(
      store.locked("conv-a", "test", (conversation) =>
        conversation.append([...build.turn("three"), INVALID_EVENT]),
      ),
    ).rejects.toThrow(/invalid event/);
    expect(store.load("conv-a").events).toEqual([...first, ...second]);
    expect(store.readMeta("conv-a")).toEqual(meta);
    expect(store.revision("conv-a")).toBe(before);

    await store.appendLocked("conv-a", build.turn("four"), "test");
    expect(store.readMeta("conv-a").turn_count).toBe(3);
    await expect(
      store.locked("conv-x", "test", (conversation) => conversation.append(second)),
    ).rejects.toMatchObject({ code: "conversation-not-found" });
  });

  it("hands out copies: changing what was loaded changes nothing stored", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a", title: "A", events: build.turn("one") });
    const loaded = store.load("conv-a");
    loaded.events.pop();
    (loaded.events[0] as { ts: string }).ts = "changed";
    (loaded.meta as { title: string }).title = "changed";
    const again = store.load("conv-a");
    expect(again.events).toHaveLength(3);
    expect(again.events[0]!.type === "unknown" ? "" : again.events[0]!.ts).not.toBe("changed");
    expect(again.meta.title).toBe("A");
  });

  it("resolves ids and prefixes, live and archived", async () => {
    const store = await implementation().open();
    for (const id of ["abc111", "abc222", "abd333"]) store.create({ id });
    await store.archive("abc222");
    expect(store.resolveId(" ABD ")).toBe("abd333");
    expect(store.resolveId("abc2")).toBe("abc222");
    expect(caughtCxcError(() => store.resolveId("ab")).message).toBe(
      "'ab' matches 3 conversations: abc111, abd333, abc222 (archived)",
    );
    expect(caughtCxcError(() => store.resolveId("zz")).code).toBe("conversation-not-found");
    expect(caughtCxcError(() => store.resolveTarget(undefined)).code).toBe("no-active-conversation");
    store.setActive("abc111");
    expect(store.resolveTarget(undefined)).toBe("abc111");
  });

  it("lists newest activity first, archived ones apart, and archives and unarchives keeping everything", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a", createdAt: "2026-01-01T00:00:00.000Z", events: build.turn("one") });
    store.create({ id: "conv-b", createdAt: "2026-01-02T00:00:00.000Z" });
    store.create({ id: "conv-c", createdAt: "2026-01-03T00:00:00.000Z" });
    await store.locked("conv-a", "test", (conversation) =>
      conversation.append(build.turn("two"), "2026-01-04T00:00:00.000Z"),
    );
    expect(store.list().conversations.map((entry) => entry.meta.id)).toEqual(["conv-a", "conv-c", "conv-b"]);

    await store.archive("conv-a", "2026-02-01T00:00:00.000Z");
    await store.archive("conv-a");
    expect(store.list().conversations.map((entry) => entry.meta.id)).toEqual(["conv-c", "conv-b"]);
    expect(store.list({ archived: true }).conversations).toMatchObject([
      { archived: true, meta: { id: "conv-a", archived_at: "2026-02-01T00:00:00.000Z" } },
    ]);
    expect(store.load("conv-a")).toMatchObject({ archived: true });
    expect(store.load("conv-a").events).toHaveLength(6);
    expect(store.locate("conv-a")).toMatchObject({ archived: true });

    expect(await store.unarchive("conv-a")).toBe(true);
    expect(await store.unarchive("conv-a")).toBe(false);
    expect(store.readMeta("conv-a").archived_at).toBeUndefined();
    expect(store.load("conv-a").events).toHaveLength(6);
  });

  it("creates a conversation archived, and refuses its id again, live or archived", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-old", events: build.turn("one"), archivedAt: "2026-02-01T00:00:00.000Z" });
    expect(store.locate("conv-old")).toMatchObject({ archived: true });
    expect(store.list().conversations).toEqual([]);
    expect(store.list({ archived: true }).conversations).toMatchObject([
      { archived: true, meta: { id: "conv-old", archived_at: "2026-02-01T00:00:00.000Z", turn_count: 1 } },
    ]);
    expect(store.load("conv-old").events).toHaveLength(3);
    expect(caughtCxcError(() => store.create({ id: "conv-old" })).message).toBe(
      "conversation conv-old already exists",
    );
    expect(await store.unarchive("conv-old")).toBe(true);
    expect(
      caughtCxcError(() => store.create({ id: "conv-old", archivedAt: "2026-03-01T00:00:00.000Z" })).message,
    ).toBe("conversation conv-old already exists");
  });

  it("removes a conversation and clears it as this session's active one only", async () => {
    const opened = implementation();
    const store = await opened.open();
    const other = await opened.open({ CXC_SESSION: "other terminal" });
    store.create({ id: "conv-a" });
    store.create({ id: "conv-b" });
    store.setActive("conv-a");
    other.setActive("conv-a");
    await store.remove("conv-a");
    expect(store.locate("conv-a")).toBeUndefined();
    expect(other.locate("conv-a")).toBeUndefined();
    expect(store.active()).toBeUndefined();
    expect(other.active()).toBe("conv-a");
    expect(store.ids()).toEqual([{ id: "conv-b", archived: false }]);
    await expect(store.remove("conv-a")).rejects.toMatchObject({ code: "conversation-not-found" });
  });

  it("keeps one active conversation per session", async () => {
    const opened = implementation();
    const plain = await opened.open();
    const first = await opened.open({ CXC_SESSION: "terminal one" });
    const second = await opened.open({ CXC_SESSION: "terminal-two" });
    for (const id of ["conv-a", "conv-b", "conv-c"]) plain.create({ id });
    plain.setActive("conv-a");
    first.setActive("conv-b");
    second.setActive("conv-c");
    expect([plain.active(), first.active(), second.active()]).toEqual(["conv-a", "conv-b", "conv-c"]);
    expect(first.resolveTarget(undefined)).toBe("conv-b");
    // Each session's history: the active conversation and the one before it, latest first.
    first.setActive("conv-c");
    expect(first.sessionHistory()).toEqual(["conv-c", "conv-b"]);
    expect(plain.sessionHistory()).toEqual(["conv-a"]);
    first.setActive(undefined);
    expect(first.active()).toBeUndefined();
    expect(first.sessionHistory()).toEqual(["conv-c"]);
    expect(plain.active()).toBe("conv-a");
  });

  it("gives each one-time notice once per store, whatever the session", async () => {
    const opened = implementation();
    const first = await opened.open();
    const other = await opened.open({ CXC_SESSION: "terminal two" });
    expect(first.claimNotice("context-figure")).toBe(true);
    expect(first.claimNotice("context-figure")).toBe(false);
    expect(other.claimNotice("context-figure")).toBe(false);
    expect(other.claimNotice("another notice")).toBe(true);
  });

  it("changes metadata under the lock", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a", title: "old" });
    const updated = await store.updateMeta("conv-a", (meta) => ({ ...meta, title: "new" }), "test");
    expect(updated.title).toBe("new");
    expect(store.readMeta("conv-a").title).toBe("new");
    expect(store.list().conversations[0]!.meta.title).toBe("new");
    await expect(store.updateMeta("conv-x", (meta) => meta, "test")).rejects.toMatchObject({
      code: "conversation-not-found",
    });
  });

  it("serialises holders of one conversation's lock and lets other conversations through", async () => {
    const opened = implementation();
    const store = await opened.open();
    const other = await opened.open();
    store.create({ id: "conv-a" });
    store.create({ id: "conv-b" });
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = store.locked("conv-a", "first", async () => {
      order.push("first in");
      await firstHeld;
      order.push("first out");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = other.locked("conv-a", "second", () => void order.push("second in"));
    await other.locked("conv-b", "elsewhere", () => void order.push("other conversation"));
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "other conversation", "first out", "second in"]);
  });

  it("fails with lock-timeout when the lock stays held past the timeout, and releases on errors", async () => {
    const opened = implementation();
    const store = await opened.open();
    const impatient = await opened.open({ CXC_LOCK_TIMEOUT_MS: "100" });
    store.create({ id: "conv-a" });
    let release!: () => void;
    const holding = store.locked(
      "conv-a",
      "cxc q",
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(impatient.locked("conv-a", "cxc compact", () => "never")).rejects.toMatchObject({
      code: "lock-timeout",
      message: expect.stringContaining("conversation conv-a is locked by cxc q"),
    });
    release();
    await holding;
    await expect(store.locked("conv-a", "x", () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(await impatient.locked("conv-a", "after", () => "got it")).toBe("got it");
  });

  it("keeps the review record: the source of a review, the open reviews, and the guard", async () => {
    const store = await implementation().open();
    store.create({ id: "source-a" });
    store.create({ id: "source-b" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    // As versions before the review record wrote a review: the source in the metadata.
    store.create({ id: "review-b", extra: { compaction_source: "source-b" } });
    expect(store.reviewSource("review-a")).toBe("source-a");
    expect(store.reviewSource("review-b")).toBe("source-b");
    expect(store.reviewSource("source-a")).toBeUndefined();
    expect(store.reviewSource("missing")).toBeUndefined();
    expect(store.openReviews().sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: "review-a", archived: false, compactionSource: "source-a" },
      { id: "review-b", archived: false, compactionSource: "source-b" },
    ]);
    const refused = caughtCxcError(() => assertNoOpenReview(store, "source-a"));
    expect(refused).toMatchObject({ code: "review-open", message: expect.stringContaining("review-a") });

    await store.archive("review-a");
    expect(store.reviewSource("review-a")).toBe("source-a");
    expect(store.openReviews().map((record) => record.id)).toEqual(["review-b"]);
    expect(() => assertNoOpenReview(store, "source-a")).not.toThrow();
  });

  it("ends a review in one step: its record says how and when, and it is archived", async () => {
    const store = await implementation().open();
    store.create({ id: "source-a" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    store.create({ id: "review-b", reviewOf: "source-a" });
    store.create({ id: "review-c", extra: { compaction_source: "source-a" } });
    expect(store.reviewInfo("review-a")).toEqual({ source: "source-a" });
    expect(store.reviewInfo("source-a")).toBeUndefined();
    // The listing carries the record, so `ls` needs no other read.
    const live = store.list().conversations;
    expect(live.find((entry) => entry.meta.id === "review-a")?.review).toEqual({ source: "source-a" });
    expect(live.find((entry) => entry.meta.id === "review-c")?.review).toEqual({ source: "source-a" });
    expect(live.find((entry) => entry.meta.id === "source-a")?.review).toBeUndefined();

    await store.endReview(
      "review-a",
      { outcome: "applied", compactionId: "c-1" },
      "2026-03-01T10:00:00.000Z",
    );
    await store.endReview("review-b", { outcome: "aborted" }, "2026-03-01T11:00:00.000Z");
    await store.endReview("review-c", { outcome: "aborted" }, "2026-03-01T12:00:00.000Z");
    expect(store.locate("review-a")).toEqual(expect.objectContaining({ archived: true }));
    expect(store.readMeta("review-a").archived_at).toBe("2026-03-01T10:00:00.000Z");
    expect(store.reviewInfo("review-a")).toEqual({
      source: "source-a",
      outcome: "applied",
      ended_at: "2026-03-01T10:00:00.000Z",
      compaction_id: "c-1",
    });
    expect(store.reviewInfo("review-c")).toEqual({
      source: "source-a",
      outcome: "aborted",
      ended_at: "2026-03-01T12:00:00.000Z",
    });
    const archived = store.list({ archived: true }).conversations;
    expect(archived.find((entry) => entry.meta.id === "review-b")?.review).toEqual({
      source: "source-a",
      outcome: "aborted",
      ended_at: "2026-03-01T11:00:00.000Z",
    });
    expect(store.openReviews()).toEqual([]);
    // Only a review can be ended.
    await expect(store.endReview("source-a", { outcome: "aborted" })).rejects.toThrow(
      /not a compaction review/,
    );
    expect(store.locate("source-a")).toEqual(expect.objectContaining({ archived: false }));
  });

  it("keeps the advisor record, reading the metadata field older versions wrote", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a" });
    store.create({
      id: "conv-old",
      extra: { advisor: { last_announced: "notice", warned: "yes", other: 1 } },
    });
    expect(store.advisorState("conv-a")).toEqual({});
    expect(store.advisorState("conv-old")).toEqual({ last_announced: "notice" });
    await store.locked("conv-a", "test", (conversation) =>
      conversation.saveAdvisorState({ last_announced: "recommend" }),
    );
    expect(store.advisorState("conv-a")).toEqual({ last_announced: "recommend" });
    await store.locked("conv-old", "test", (conversation) => conversation.saveAdvisorState({ warned: true }));
    expect(store.advisorState("conv-old")).toEqual({ warned: true });
    // The record is not metadata: saving it leaves the metadata alone.
    expect(store.readMeta("conv-a")).not.toHaveProperty("advisor");
    expect(caughtCxcError(() => store.advisorState("conv-x")).code).toBe("conversation-not-found");
  });

  it("appends only through the locked conversation, which refuses to be used after its lock is released", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a", events: build.turn("one") });
    const kept = await store.locked("conv-a", "test", (conversation) => conversation);
    expect(() => kept.append(build.turn("late"))).toThrow(/after its lock was released/);
    expect(() => kept.saveAdvisorState({ warned: true })).toThrow(/after its lock was released/);
    expect(store.load("conv-a").events).toHaveLength(build.turn("x").length);
    expect(store.advisorState("conv-a")).toEqual({});
    expect("append" in store).toBe(false);
  });

  it("counts tokens, remembering the counts of a conversation", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a" });
    const counter = await store.tokenCounter("conv-a");
    // Counts are memoized per process: a text no other test counted.
    const text = `a sentence for the ${name} store's token counter`;
    expect(counter.known(text)).toBeUndefined();
    const count = counter(text);
    expect(count).toBeGreaterThan(3);
    expect(counter.known(text)).toBe(count);
    expect((await store.tokenCounter())(text)).toBe(count);
    await expect(store.tokenCounter("conv-x")).rejects.toMatchObject({ code: "conversation-not-found" });
  });

  it("gives tools a read-only view", async () => {
    const store = await implementation().open();
    store.create({ id: "conv-a", events: build.turn("one") });
    const view = readOnly(store);
    expect(view.load("conv-a").events).toEqual(store.load("conv-a").events);
    expect(view.locate("conv-a")).toEqual(store.locate("conv-a"));
    for (const write of ["create", "append", "locked", "updateMeta", "archive", "remove", "setActive"]) {
      expect(write in view, write).toBe(false);
    }
  });
});

describe("the file store's records on disk", () => {
  it("writes review.json with a review and advisor.json beside the log, never into meta.json", async () => {
    const { root, open } = fileImplementation();
    const store = await open();
    store.create({ id: "source-a" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    await store.locked("source-a", "test", (conversation) =>
      conversation.saveAdvisorState({ last_announced: "notice" }),
    );
    const directory = (id: string) => join(root, "conversations", id);
    expect(JSON.parse(readFileSync(join(directory("review-a"), "review.json"), "utf8"))).toEqual({
      source: "source-a",
    });
    expect(JSON.parse(readFileSync(join(directory("source-a"), "advisor.json"), "utf8"))).toEqual({
      last_announced: "notice",
    });
    expect(existsSync(join(directory("source-a"), "review.json"))).toBe(false);
    for (const id of ["source-a", "review-a"]) {
      const meta = JSON.parse(readFileSync(join(directory(id), "meta.json"), "utf8")) as object;
      expect(meta).not.toHaveProperty("compaction_source");
      expect(meta).not.toHaveProperty("advisor");
    }
  });

  it("writes the outcome into review.json when a review ends, and the listing reads it back", async () => {
    const { root, open } = fileImplementation();
    const store = await open();
    store.create({ id: "source-a" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    store.list({ archived: true }); // a cached archive listing from before the review ended
    await store.endReview(
      "review-a",
      { outcome: "applied", compactionId: "c-9" },
      "2026-03-01T10:00:00.000Z",
    );
    expect(JSON.parse(readFileSync(join(root, "archive", "review-a", "review.json"), "utf8"))).toEqual({
      source: "source-a",
      outcome: "applied",
      ended_at: "2026-03-01T10:00:00.000Z",
      compaction_id: "c-9",
    });
    const reopened = await open();
    expect(reopened.list({ archived: true }).conversations[0]?.review).toMatchObject({ outcome: "applied" });
  });

  it("prefers the records to the metadata fields of older versions", async () => {
    const { root, open } = fileImplementation();
    const store = await open();
    store.create({
      id: "conv-a",
      extra: { compaction_source: "old-source", advisor: { last_announced: "notice" } },
    });
    const directory = join(root, "conversations", "conv-a");
    writeFileSync(join(directory, "review.json"), JSON.stringify({ source: "new-source" }));
    writeFileSync(join(directory, "advisor.json"), JSON.stringify({ warned: true }));
    expect(store.reviewSource("conv-a")).toBe("new-source");
    expect(store.advisorState("conv-a")).toEqual({ warned: true });
  });

  it("refuses a damaged review record instead of reading it as no review, and forgets a damaged advisor record", async () => {
    const { root, open } = fileImplementation();
    const store = await open();
    store.create({ id: "source-a" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    const directory = join(root, "conversations", "review-a");
    writeFileSync(join(directory, "review.json"), "{not json");
    writeFileSync(join(directory, "advisor.json"), "{not json");
    expect(caughtCxcError(() => store.openReviews())).toMatchObject({
      code: "corrupt-log",
      message: expect.stringContaining("review.json"),
    });
    expect(store.advisorState("review-a")).toEqual({});
  });
});
