/**
 * The conversation store: id prefixes, sessions, archive, remove, list.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newConversationId } from "../../src/store/ids.js";
import { sessionKey } from "../../src/store/session.js";
import { ConversationStore } from "../../src/store/store.js";
import { createEventBuilder } from "../helpers/builders.js";
import { caughtCxcError } from "../helpers/errors.js";

let base: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-store-"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function openStore(env: Record<string, string> = {}): ConversationStore {
  return new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base, ...env });
}

describe("conversation ids", () => {
  it("makes short, sortable, unique ids", () => {
    const ids = Array.from({ length: 200 }, (_, index) => newConversationId(1_780_000_000_000 + index));
    expect(new Set(ids).size).toBe(200);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{13}$/);
  });

  it("resolves a full id, a unique prefix, and reports none and ambiguous matches", () => {
    const store = openStore();
    for (const id of ["abc111", "abc222", "abd333", "xyz999"]) store.create({ id });
    expect(store.resolveId("abc111")).toBe("abc111");
    expect(store.resolveId("abd")).toBe("abd333");
    expect(store.resolveId(" ABC2 ")).toBe("abc222");

    const ambiguous = caughtCxcError(() => store.resolveId("ab"));
    expect(ambiguous.code).toBe("conversation-ambiguous");
    expect(ambiguous.message).toBe("'ab' matches 3 conversations: abc111, abc222, abd333");

    const none = caughtCxcError(() => store.resolveId("q"));
    expect(none.code).toBe("conversation-not-found");
    expect(none.hint).toMatch(/cxc conversation ls/);

    expect(caughtCxcError(() => store.resolveId("  ")).code).toBe("usage");
  });

  it("resolves prefixes of archived conversations too, marking them in ambiguity messages", async () => {
    const store = openStore();
    store.create({ id: "abc111" });
    store.create({ id: "abc222" });
    await store.archive("abc222");
    expect(store.resolveId("abc2")).toBe("abc222");
    expect(caughtCxcError(() => store.resolveId("abc")).message).toContain("abc222 (archived)");
  });

  it("refuses an id that exists or that is not a valid directory name", () => {
    const store = openStore();
    store.create({ id: "abc111" });
    expect(caughtCxcError(() => store.create({ id: "abc111" })).message).toMatch(/already exists/);
    expect(caughtCxcError(() => store.create({ id: "../escape" })).code).toBe("usage");
  });
});

describe("sessions", () => {
  it("keeps one active conversation per CXC_SESSION, and a default without it", () => {
    const plain = openStore();
    const first = openStore({ CXC_SESSION: "terminal one" });
    const second = openStore({ CXC_SESSION: "terminal-two" });
    for (const id of ["conv-a", "conv-b", "conv-c"]) plain.create({ id });

    plain.setActive("conv-a");
    first.setActive("conv-b");
    second.setActive("conv-c");
    expect(plain.active()).toBe("conv-a");
    expect(first.active()).toBe("conv-b");
    expect(second.active()).toBe("conv-c");
    expect(first.resolveTarget(undefined)).toBe("conv-b");
    expect(second.resolveTarget("conv-a")).toBe("conv-a");

    const files = readdirSync(join(base, "sessions")).sort();
    expect(files).toHaveLength(3);
    expect(files).toContain("default.json");
    expect(files).toContain(`${sessionKey({ CXC_SESSION: "terminal one" })}.json`);
    expect(sessionKey({ CXC_SESSION: "terminal one" })).toMatch(/^session-terminal_one-[0-9a-f]{8}$/);
    // Names that sanitise alike still get different sessions.
    expect(sessionKey({ CXC_SESSION: "a b" })).not.toBe(sessionKey({ CXC_SESSION: "a_b" }));
    expect(sessionKey({ CXC_SESSION: "  " })).toBe("default");
  });

  it("remembers the previous active conversation", () => {
    const store = openStore();
    store.setActive("conv-a");
    store.setActive("conv-b");
    const file = JSON.parse(readFileSync(join(base, "sessions", "default.json"), "utf8")) as unknown;
    expect(file).toEqual({ active: "conv-b", activated_at: expect.any(String), previous: "conv-a" });
  });

  it("resolves jp's keywords: active and . name the active conversation, recent the one used last (parse_active_keyword, active_resolves_to_the_head_of_the_session_history, last_activated_resolves)", () => {
    const store = openStore();
    store.create({ id: "conv-a", createdAt: "2026-01-01T00:00:00.000Z" });
    store.create({ id: "conv-b", createdAt: "2026-01-02T00:00:00.000Z" });
    store.setActive("conv-a");
    expect(store.resolveTarget("active")).toBe("conv-a");
    expect(store.resolveTarget(".")).toBe("conv-a");
    expect(store.resolveTarget(" ACTIVE ")).toBe("conv-a");
    // conv-b was written later, but conv-a was activated after that.
    expect(store.resolveTarget("recent")).toBe("conv-a");
  });

  it("says that the keyword names the active conversation when none is (active_without_session_errors, active_errors_when_session_has_no_history)", () => {
    const store = openStore();
    store.create({ id: "conv-a" });
    const error = caughtCxcError(() => store.resolveTarget("active"));
    expect(error.code).toBe("no-active-conversation");
    expect(error.message).toBe("'active' names the active conversation, and none is active");
  });

  it("has no target when nothing is active, or the active conversation is gone", async () => {
    const store = openStore();
    expect(caughtCxcError(() => store.resolveTarget(undefined)).code).toBe("no-active-conversation");
    store.create({ id: "conv-a" });
    store.setActive("conv-a");
    await store.remove("conv-a");
    expect(store.active()).toBeUndefined();
    expect(caughtCxcError(() => store.resolveTarget(undefined)).code).toBe("no-active-conversation");
  });
});

describe("archive, unarchive and remove", () => {
  it("moves a conversation into archive/ and back, keeping its log and recording archived_at", async () => {
    const store = openStore();
    const events = createEventBuilder().turn("one");
    store.create({ id: "conv-a", title: "A", events });
    store.create({ id: "conv-b" });
    const logBefore = readFileSync(join(base, "conversations", "conv-a", "events.jsonl"));

    await store.archive("conv-a", "2026-04-01T00:00:00.000Z");
    expect(existsSync(join(base, "conversations", "conv-a"))).toBe(false);
    expect(readFileSync(join(base, "archive", "conv-a", "events.jsonl")).equals(logBefore)).toBe(true);
    const archived = store.load("conv-a");
    expect(archived.archived).toBe(true);
    expect(archived.meta.archived_at).toBe("2026-04-01T00:00:00.000Z");
    expect(archived.events).toEqual(events);
    expect(store.list().conversations.map((entry) => entry.meta.id)).toEqual(["conv-b"]);
    expect(store.list({ archived: true }).conversations.map((entry) => entry.meta.id)).toEqual(["conv-a"]);

    await store.archive("conv-a"); // archiving twice is a no-op
    expect(await store.unarchive("conv-a")).toBe(true);
    expect(await store.unarchive("conv-a")).toBe(false);
    const restored = store.load("conv-a");
    expect(restored.archived).toBe(false);
    expect(restored.meta.archived_at).toBeUndefined();
    expect(restored.meta.title).toBe("A");
    expect(readFileSync(join(base, "conversations", "conv-a", "events.jsonl")).equals(logBefore)).toBe(true);
  });

  it("removes a conversation completely and leaves the others alone", async () => {
    const store = openStore();
    store.create({ id: "conv-a" });
    store.create({ id: "conv-b" });
    await store.remove("conv-a");
    expect(store.locate("conv-a")).toBeUndefined();
    expect(readdirSync(base).filter((name) => name.startsWith(".trash"))).toEqual([]);
    expect(store.ids()).toEqual([{ id: "conv-b", archived: false }]);
    await expect(store.remove("conv-a")).rejects.toMatchObject({ code: "conversation-not-found" });
  });

  it("lists newest activity first and reports unreadable metadata as a warning", async () => {
    const store = openStore();
    store.create({ id: "conv-a", createdAt: "2026-01-01T00:00:00.000Z" });
    store.create({ id: "conv-b", createdAt: "2026-01-02T00:00:00.000Z" });
    await store.locked("conv-a", "test", (conversation) =>
      conversation.append(createEventBuilder().turn("one"), "2026-01-03T00:00:00.000Z"),
    );
    rmSync(join(base, "conversations", "conv-b", "meta.json"));
    store.create({ id: "conv-c", createdAt: "2026-01-01T12:00:00.000Z" });
    const { conversations, warnings } = store.list();
    expect(conversations.map((entry) => entry.meta.id)).toEqual(["conv-a", "conv-c"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/conv-b.*meta\.json/);
  });
});
