/**
 * `import FILE --update` in the file store (src/store/agent-update.ts): a session that grew after
 * its import is brought in again by appending only what is new. Over the real sessions the agents
 * wrote (fixtures/agents/), cut at every line: the first part imported, then the whole file
 * brought in with --update gives the events the whole file imports to (their metadata aside),
 * keeping what cxc recorded in between; a second --update appends nothing. A change to a record
 * already brought in is refused, naming it, and so is a continuation that would land in a turn of
 * cxc's own; nothing is written then. opencode's sessions (a document `opencode export` printed,
 * cut at every message) the same way, through `updateFromOpencode`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type ConversationEvent, isTurnEvent } from "../../src/core/conversation/events.js";
import { usageReader } from "../../src/core/conversation/tokens.js";
import { CxcError } from "../../src/errors.js";
import { loadInterop, type Store } from "../../src/store/index.js";
import { ConversationStore } from "../../src/store/store.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/agents/", import.meta.url));
const { readAgentImport, saveAgentImport, updateFromAgentSession, updateFromOpencode } = await loadInterop();

const root = mkdtempSync(join(tmpdir(), "cxc-agent-update-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;

function freshStore(): Store {
  const directory = join(root, `store-${++stores}`);
  return new ConversationStore({ kind: "home", root: directory, origin: "test" }, { CXC_HOME: directory });
}

/** What the comparison looks at: the events without their metadata (a reader's notes). */
function withoutMetadata(events: readonly ConversationEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type === "unknown") return event.raw;
    const { metadata: _metadata, ...rest } = event as ConversationEvent & { metadata?: unknown };
    return rest;
  });
}

async function importFile(
  store: Store,
  file: string,
  agent: "claude-code" | "pi" | "codex" | "opencode",
): Promise<string> {
  const [outcome] = await saveAgentImport(store, await readAgentImport(file, agent), { skipExisting: false });
  return outcome!.id;
}

const SESSIONS = [
  ["claude-code", "claude-code/session.jsonl"],
  ["pi", "pi/session.jsonl"],
  ["codex", "codex/session.jsonl"],
] as const;

describe("import --update over the agents' real sessions", () => {
  it.each(SESSIONS)(
    "%s: a first part imported, then the whole file, at every line, is the whole import",
    async (agent, path) => {
      const whole = readFileSync(join(FIXTURES, path), "utf8").split("\n");
      if (whole.at(-1) === "") whole.pop();
      const reference = freshStore();
      const expected = reference.load(await importFile(reference, join(FIXTURES, path), agent)).events;
      let cuts = 0;
      for (let lines = 1; lines < whole.length; lines++) {
        const store = freshStore();
        const file = join(root, `${agent}-${lines}.jsonl`);
        writeFileSync(file, `${whole.slice(0, lines).join("\n")}\n`);
        let id: string;
        try {
          id = await importFile(store, file, agent);
        } catch {
          continue; // a first part that is no session yet (no header, no prompt)
        }
        cuts += 1;
        // Grown twice: halfway, then to the end (the second --update appends after the first).
        const halfway = lines + Math.floor((whole.length - lines) / 2);
        if (halfway > lines) {
          writeFileSync(file, `${whole.slice(0, halfway).join("\n")}\n`);
          await updateFromAgentSession(store, file, agent);
        }
        writeFileSync(file, `${whole.join("\n")}\n`);
        const outcome = await updateFromAgentSession(store, file, agent);
        expect(outcome.id).toBe(id);
        const events = store.load(id).events;
        // The same events, in the same order, save a setting the first part did not have yet (the
        // model, once the first reply names it): it comes after the events the first part had.
        // (Their ids come from their positions in the session, which the setting shifts.)
        // Usage the first part did not have yet (a request's usage recorded after its answer) comes
        // in as `usage` records naming the events: each event then reads the usage the whole
        // import gives it.
        const readUsage = usageReader(events);
        const readExpected = usageReader(expected);
        const usages = (list: readonly ConversationEvent[], read: typeof readUsage) =>
          list.flatMap((event) => (isTurnEvent(event) ? [read(event) ?? null] : []));
        expect(usages(events, readUsage), `${agent} cut after line ${lines}: usage`).toEqual(
          usages(expected, readExpected),
        );
        const turnsOnly = (list: readonly ConversationEvent[]) =>
          withoutMetadata(
            list.filter((event) => event.type !== "config_delta" && event.type !== "usage"),
          ).map((event) => {
            const { id: _id, ...rest } = event as Record<string, unknown>;
            return rest;
          });
        const settings = (list: readonly ConversationEvent[]) =>
          withoutMetadata(list.filter((event) => event.type === "config_delta")).map((event) => {
            const { id: _id, ...rest } = event as Record<string, unknown>;
            return JSON.stringify(rest);
          });
        expect(turnsOnly(events), `${agent} cut after line ${lines}`).toEqual(turnsOnly(expected));
        expect(settings(events).sort()).toEqual(settings(expected).sort());
        expect((await updateFromAgentSession(store, file, agent)).appended).toBe(0);
      }
      expect(cuts).toBeGreaterThan(whole.length / 4);
    },
  );

  it("brings in a conversation imported before cxc recorded where its session's events are", async () => {
    const whole = readFileSync(join(FIXTURES, "codex/session.jsonl"), "utf8").split("\n");
    const file = join(root, "legacy.jsonl");
    writeFileSync(file, `${whole.slice(0, 20).join("\n")}\n`);
    const store = freshStore();
    const id = await importFile(store, file, "codex");
    await store.updateMeta(
      id,
      (meta) => {
        const { session_events: _ranges, ...origin } = meta.origin as Record<string, unknown>;
        return { ...meta, origin };
      },
      "test",
    );
    const before = store.load(id).events;
    writeFileSync(file, whole.join("\n"));
    const outcome = await updateFromAgentSession(store, file, "codex");
    expect(outcome.appended).toBeGreaterThan(0);
    expect(store.load(id).events.slice(0, before.length)).toEqual(before);
    expect(store.readMeta(id).origin).toMatchObject({
      session_events: [[0, before.length + outcome.appended]],
    });
  });

  it("keeps what cxc recorded in between, and appends after it", async () => {
    const whole = readFileSync(join(FIXTURES, "claude-code/session.jsonl"), "utf8").split("\n");
    const file = join(root, "kept.jsonl");
    writeFileSync(file, `${whole.slice(0, 30).join("\n")}\n`);
    const store = freshStore();
    const id = await importFile(store, file, "claude-code");
    const before = store.load(id).events;
    const pin = {
      type: "pin",
      id: "01PIN000000000000000000000",
      ts: "2026-12-02T00:00:00.000Z",
      turn: 0,
      source: "user",
    };
    await store.appendLocked(id, [pin as ConversationEvent], "test");
    writeFileSync(file, whole.join("\n"));
    const outcome = await updateFromAgentSession(store, file, "claude-code");
    const after = store.load(id).events;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after[before.length]).toMatchObject({ type: "pin", id: pin.id });
    expect(after).toHaveLength(before.length + 1 + outcome.appended);
    expect(outcome.newTurns).toBeGreaterThan(0);
  });

  it("refuses a change to a record already brought in, naming it, and writes nothing", async () => {
    const whole = readFileSync(join(FIXTURES, "pi/session.jsonl"), "utf8").split("\n");
    const file = join(root, "changed.jsonl");
    writeFileSync(file, `${whole.slice(0, 8).join("\n")}\n`);
    const store = freshStore();
    const id = await importFile(store, file, "pi");
    const before = store.load(id).events;
    const prompt = whole.findIndex((line) => line.includes('"role":"user"'));
    const edited = [...whole];
    edited[prompt] = edited[prompt]!.replace(/"text":"([^"]*)"/, '"text":"EDITED $1"');
    writeFileSync(file, edited.join("\n"));
    const refused = await updateFromAgentSession(store, file, "pi").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CxcError);
    expect((refused as CxcError).code).toBe("import-conflict");
    expect((refused as CxcError).message).toMatch(
      new RegExp(
        `^${id}: turn 1, a user message \\("What files are here, and what do the no…"\\), brought in from the session, is not in the file as it was`,
      ),
    );
    expect(store.load(id).events).toEqual(before);
  });

  it("refuses a continuation of the last turn when cxc added turns of its own after it", async () => {
    const whole = readFileSync(join(FIXTURES, "claude-code/session.jsonl"), "utf8").split("\n");
    const file = join(root, "continued.jsonl");
    // Cut after the two tool calls of turn 1: their results and answer continue that turn.
    writeFileSync(file, `${whole.slice(0, 14).join("\n")}\n`);
    const store = freshStore();
    const id = await importFile(store, file, "claude-code");
    const own = [
      { type: "turn_start", id: "01OWN000000000000000000001", ts: "2026-12-02T00:00:00.000Z" },
      {
        type: "chat_request",
        id: "01OWN000000000000000000002",
        ts: "2026-12-02T00:00:00.001Z",
        content: "mine",
      },
    ];
    await store.appendLocked(id, own as ConversationEvent[], "test");
    const before = store.load(id).events;
    writeFileSync(file, whole.join("\n"));
    await expect(updateFromAgentSession(store, file, "claude-code")).rejects.toThrow(
      /continues the last turn .* but the conversation has turns of its own after that turn/,
    );
    expect(store.load(id).events).toEqual(before);
  });

  it("opencode: a session cut at every message, imported, then grown twice, is the whole import", async () => {
    const whole = JSON.parse(readFileSync(join(FIXTURES, "opencode/session.json"), "utf8")) as {
      info: unknown;
      messages: unknown[];
    };
    const write = (file: string, messages: number) =>
      writeFileSync(file, JSON.stringify({ info: whole.info, messages: whole.messages.slice(0, messages) }));
    const reference = freshStore();
    const wholeFile = join(root, "opencode-whole.json");
    write(wholeFile, whole.messages.length);
    const expected = reference.load(await importFile(reference, wholeFile, "opencode")).events;
    // As for the session files above: the same events in order, settings (the model, once the
    // first reply names it) as a set, after the events the first part had.
    const withoutIds = (list: readonly ConversationEvent[]) =>
      withoutMetadata(list).map((event) => {
        const { id: _id, ...rest } = event as Record<string, unknown>;
        return rest;
      });
    const turnsOnly = (list: readonly ConversationEvent[]) =>
      withoutIds(list.filter((event) => event.type !== "config_delta"));
    const settings = (list: readonly ConversationEvent[]) =>
      withoutIds(list.filter((event) => event.type === "config_delta")).map((event) => JSON.stringify(event));
    for (let messages = 1; messages < whole.messages.length; messages++) {
      const store = freshStore();
      const file = join(root, `opencode-${messages}.json`);
      write(file, messages);
      const id = await importFile(store, file, "opencode");
      const halfway = messages + Math.floor((whole.messages.length - messages) / 2);
      if (halfway > messages) {
        write(file, halfway);
        await updateFromOpencode(store, file);
      }
      write(file, whole.messages.length);
      const outcome = await updateFromOpencode(store, file);
      expect(outcome.notImported).toBe(0);
      expect(outcome.sessions.map((session) => session.id)).toEqual([id]);
      const events = store.load(id).events;
      expect(turnsOnly(events), `cut after message ${messages}`).toEqual(turnsOnly(expected));
      expect(settings(events).sort()).toEqual(settings(expected).sort());
      expect((await updateFromOpencode(store, file)).sessions[0]!.appended).toBe(0);
    }
  });

  it("opencode: a changed message refuses the update, naming it, and writes nothing", async () => {
    const whole = JSON.parse(readFileSync(join(FIXTURES, "opencode/session.json"), "utf8")) as {
      info: unknown;
      messages: { info: { role: string }; parts: { type: string; text?: string }[] }[];
    };
    const file = join(root, "opencode-changed.json");
    writeFileSync(file, JSON.stringify({ info: whole.info, messages: whole.messages.slice(0, 4) }));
    const store = freshStore();
    const id = await importFile(store, file, "opencode");
    const before = store.load(id).events;
    const edited = structuredClone(whole.messages);
    edited[0]!.parts[0]!.text = `EDITED ${edited[0]!.parts[0]!.text}`;
    writeFileSync(file, JSON.stringify({ info: whole.info, messages: edited }));
    await expect(updateFromOpencode(store, file)).rejects.toThrow(
      new RegExp(
        `^${id}: turn 1, a user message \\("Never touch the migrations folder. What…"\\), brought in from the session, is not in the file as it was`,
      ),
    );
    expect(store.load(id).events).toEqual(before);
    // A session no conversation came from.
    const other = freshStore();
    await expect(updateFromOpencode(other, file)).rejects.toThrow(
      /^no conversation came from .*: it was neither imported from this opencode session nor exported to it$/,
    );
  });
});
