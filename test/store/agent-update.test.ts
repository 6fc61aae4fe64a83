/**
 * `import FILE --update` in the file store (src/store/agent-update.ts): a session that grew after
 * its import is brought in again by appending only what is new. Over the real sessions the agents
 * wrote (fixtures/agents/), cut at every line: the first part imported, then the whole file
 * brought in with --update gives the events the whole file imports to (their metadata aside),
 * keeping what cxc recorded in between; a second --update appends nothing. A change to a record
 * already brought in is refused, naming it, and so is a continuation that would land in a turn of
 * cxc's own; nothing is written then.
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
const { readAgentImport, saveAgentImport, updateFromAgentSession } = await loadInterop();

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
  agent: "claude-code" | "pi" | "codex",
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
});
