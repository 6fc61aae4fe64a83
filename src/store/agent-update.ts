/**
 * `cxc conversation import FILE --update`: a Claude Code, pi, Codex or Gemini CLI session that grew
 * after it came in is brought in again onto the conversation it came from, appending only what is
 * new and keeping everything cxc recorded since (compactions, pins, reviews, turns of its own).
 * opencode keeps its sessions in one database: `import opencode.db --update` does the same for
 * every session of it a conversation came from (`updateFromOpencode`). See docs/import-export.md
 * ("Sessions that keep growing").
 *
 * Two ways a session leads back to a conversation:
 *
 * - **imported from it.** The conversation's id is the session's (an import derives it), and the
 *   events the import wrote are the session's, in order (`origin.session_events`: where in the
 *   log they are, the import's and each update's). Converting the grown file again gives them
 *   again, and the new ones after them.
 * - **exported to it** (`export --to <agent>`, then resumed in the agent). Its first lines are the
 *   compacted view cxc wrote, not the records the conversation holds; the export recorded them
 *   (`exports`: the session, its file, how many lines and a hash of each, the conversation's turns
 *   then; for opencode, whose session is rows in its database, a hash of each event it converts to). The events those lines convert to stand for turns the conversation has already; the
 *   events after them are new.
 *
 * What the conversation holds of the session is checked first, event by event and in order
 * (their ids and the readers' notes aside): a line of an export or an event brought in that changed
 * is refused, naming the first that differs; only records after the last one brought in are
 * appended. A setting the grown file adds before them (the model, once its first reply names it)
 * is appended too. New events that continue the last turn brought in (more cycles, the
 * answer to its last call) are refused when cxc has added turns of its own since, which they would
 * land in. The conversation records how far it holds the session, so the next `--update` appends
 * only what came after.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ConversationEvent, isTurnEvent, type UsageReport } from "../core/conversation/events.js";
import { readEventUsage, usageReader } from "../core/conversation/tokens.js";
import { countTurns } from "../core/conversation/turns.js";
import {
  AGENT_NAMES,
  type AgentFormat,
  importSessionText,
  ORIGIN_META_KEY,
} from "../core/interop/agent-session.js";
import { convertOpencodeSession, type OpencodeDocument } from "../core/interop/opencode.js";
import { formatCount } from "../core/present/labels.js";
import { sanitizeLine } from "../core/present/sanitize.js";
import { CxcError, usageError } from "../errors.js";
import {
  type AgentFileImport,
  convertSessionFile,
  readAgentImport,
  sessionReader,
} from "./agent-sessions.js";
import { newEventId, timestampNow } from "./ids.js";
import { nodeCrypto } from "./lazy-crypto.js";
import type { ConversationMeta, LoadedConversation, LockedConversation, Store } from "./port.js";

/** A run of events in a conversation's log: its first position and how many. */
export type LogRange = readonly [start: number, count: number];

/** Meta field of a conversation listing the sessions it was exported to (`recordAgentExport`). */
export const EXPORTS_META_KEY = "exports";

/** One export of a conversation to an agent's session, as the conversation records it. */
export interface RecordedExport {
  readonly agent: AgentFormat;
  readonly session_id: string;
  readonly file: string;
  /** The lines the export wrote, and a hash of each (what the session must still begin with). */
  readonly lines: number;
  readonly line_hashes: readonly string[];
  /**
   * opencode's (a session in its database, not lines): a hash of each event the session written
   * converts to, settings aside (what the session, read again, must still begin with).
   */
  readonly view_hashes?: readonly string[];
  /** The conversation's turns when it was exported. */
  readonly turns: number;
  readonly exported_at: string;
  /** Where in the conversation's log the events brought in from the session since are. */
  readonly session_events?: readonly LogRange[];
}

/** What `--update` did. */
export interface AgentUpdateOutcome {
  readonly agent: AgentFormat;
  readonly file: string;
  readonly id: string;
  /** How the session leads back to the conversation. */
  readonly via: "import" | "export";
  readonly appended: number;
  /** Requests whose usage the conversation now has for events it held (`usage` records). */
  readonly usage: number;
  /** Turns the appended events start, and the conversation's turns now. */
  readonly newTurns: number;
  readonly turns: number;
  readonly warnings: readonly string[];
}

/** A hash of one line of a session, short: enough to tell a line changed. */
function lineHash(line: string): string {
  return nodeCrypto().createHash("sha256").update(line).digest("hex").slice(0, 16);
}

/**
 * Records an export in the conversation's metadata, so that the session, once resumed in its
 * agent and grown, can be brought back with `import --update`.
 */
export async function recordAgentExport(
  store: Pick<Store, "locked">,
  id: string,
  written: {
    readonly agent: AgentFormat;
    readonly sessionId: string;
    readonly path: string;
    /** The lines of a session file, or opencode's session as a document. */
    readonly lines?: readonly string[];
    readonly opencodeDocument?: OpencodeDocument;
    readonly now: string;
  },
): Promise<void> {
  let viewHashes: string[] | undefined;
  if (written.opencodeDocument !== undefined) {
    const view = convertOpencodeSession(written.opencodeDocument, written.path);
    if (!view.ok) throw new CxcError("internal", view.message);
    viewHashes = view.value.events.filter((event) => event.type !== "config_delta").map(eventHash);
  }
  const lines = written.lines ?? [];
  await store.locked(id, "export", (conversation) => {
    const turns = countTurns(conversation.load().events);
    conversation.updateMeta((meta) => {
      const previous = exportsOf(meta);
      const entry: RecordedExport = {
        agent: written.agent,
        session_id: written.sessionId,
        // opencode's session is in its database: the path says so, it names no file.
        file: written.agent === "opencode" ? written.path : resolve(written.path),
        lines: lines.length,
        line_hashes: lines.map(lineHash),
        ...(viewHashes === undefined ? {} : { view_hashes: viewHashes }),
        turns,
        exported_at: written.now,
      };
      return { ...meta, [EXPORTS_META_KEY]: [...previous, entry] } as ConversationMeta;
    });
  });
}

function exportsOf(meta: Readonly<Record<string, unknown>>): RecordedExport[] {
  const value = meta[EXPORTS_META_KEY];
  return Array.isArray(value) ? (value as RecordedExport[]) : [];
}

/** The events of a session file, and the line each was read by. */
interface ConvertedSession {
  readonly events: ConversationEvent[];
  readonly lines: number[];
}

/** What an event is, for a message: `turn 4, the assistant's message ("Rotation happens in…")`. */
function describeEvent(event: ConversationEvent, turn: number | undefined): string {
  const kinds: Record<string, string> = {
    turn_start: "its start",
    chat_request: "a user message",
    chat_response: "the assistant's message",
    tool_call_request: "a tool call",
    tool_call_response: "a tool result",
    compaction: "a compaction the agent made",
    config_delta: "a setting",
  };
  const what = kinds[event.type] ?? `a ${event.type} event`;
  const text =
    event.type === "chat_request"
      ? event.content
      : event.type === "chat_response"
        ? (event.message ?? event.reasoning)
        : event.type === "tool_call_request"
          ? event.name
          : event.type === "tool_call_response"
            ? event.content
            : undefined;
  const excerpt =
    text === undefined ? "" : ` ("${sanitizeLine(text.length > 40 ? `${text.slice(0, 39)}…` : text)}")`;
  return `${turn === undefined ? "" : `turn ${turn}, `}${what}${excerpt}`;
}

/** An event as compared: everything but its id and metadata (the readers' own bookkeeping). */
function comparable(event: ConversationEvent): string {
  if (event.type === "unknown") {
    const { id: _id, ...raw } = event.raw;
    return JSON.stringify(raw);
  }
  const { id: _id, metadata: _metadata, ...rest } = event as unknown as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** A hash of an event as compared (`comparable`): enough to tell it changed. */
function eventHash(event: ConversationEvent): string {
  return lineHash(comparable(event));
}

/** The 1-based turn of each event of `events` (undefined before the first turn). */
function turnNumbers(events: readonly ConversationEvent[]): (number | undefined)[] {
  let turn = 0;
  return events.map((event) => {
    if (event.type === "turn_start") turn += 1;
    return turn === 0 ? undefined : turn;
  });
}

/**
 * Walks `held` (events brought in before, in order) along the session's events from `from`: each
 * must come next, as it was. Settings (`config_delta`: the model, once a reply names it) may stand
 * elsewhere in the grown file than where the part imported had them; they are matched as a set.
 * Returns the session's events that are new (settings the conversation lacks first), or the first
 * held event the session no longer has as it was.
 */
function align(
  held: readonly ConversationEvent[],
  session: readonly ConversationEvent[],
  from: number,
):
  | {
      readonly next: number;
      readonly fresh: ConversationEvent[];
      /** Each held event's match in the session: [held index, session index]. */
      readonly pairs: readonly (readonly [number, number])[];
    }
  | { readonly differs: number } {
  let next = from;
  const pairs: [number, number][] = [];
  for (const [index, event] of held.entries()) {
    if (event.type === "config_delta") continue;
    const wanted = comparable(event);
    while (next < session.length && session[next]!.type === "config_delta") next += 1;
    if (next >= session.length || comparable(session[next]!) !== wanted) return { differs: index };
    pairs.push([index, next]);
    next += 1;
  }
  const settings = new Map<number, string>();
  for (let position = from; position < session.length; position++)
    if (session[position]!.type === "config_delta") settings.set(position, comparable(session[position]!));
  for (const [index, event] of held.entries()) {
    if (event.type !== "config_delta") continue;
    const wanted = comparable(event);
    const found = [...settings].find(([, text]) => text === wanted);
    if (found === undefined) return { differs: index };
    settings.delete(found[0]);
  }
  const fresh = [
    ...[...settings.keys()].filter((position) => position < next).map((position) => session[position]!),
    ...session
      .slice(next)
      .filter((event, offset) => event.type !== "config_delta" || settings.has(next + offset)),
  ];
  return { next, fresh, pairs };
}

/**
 * The usage the session records for events the conversation holds without one (imported before
 * cxc kept usage): `usage` records naming them, so the context of the next request is the agent's
 * own count again (docs/context.md).
 */
function usageBackfill(
  held: readonly ConversationEvent[],
  session: readonly ConversationEvent[],
  pairs: readonly (readonly [number, number])[],
  readHeld: (event: ConversationEvent & { id: string }) => unknown,
  now: string,
): UsageReport[] {
  const records: UsageReport[] = [];
  for (const [index, position] of pairs) {
    const event = held[index]!;
    const found = session[position]!;
    if (!isTurnEvent(event) || !isTurnEvent(found) || readHeld(event) !== undefined) continue;
    if (readEventUsage(found) === undefined) continue;
    records.push({
      type: "usage",
      id: newEventId(),
      ts: now,
      event: event.id,
      usage: { ...(found.metadata!.usage as object) },
    });
  }
  return records;
}

/**
 * `import FILE --update`: appends to the conversation FILE came from what FILE holds beyond it;
 * see the module comment. Throws a `CxcError` naming what stands in the way; writes nothing then.
 */
export async function updateFromAgentSession(
  store: Store,
  path: string,
  agent: AgentFormat,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<AgentUpdateOutcome> {
  const batch = await readAgentImport(path, agent, env);
  try {
    if (batch.files.length !== 1) {
      throw usageError(
        `--update takes one session file; ${path} holds ${batch.files.length}`,
        "name the session file: cxc conversation import FILE --update",
      );
    }
    const entry = batch.files[0]!;
    const target = findTarget(store, entry, agent);
    if (target === undefined) throw noConversationCameFrom(entry.file, agent);
    const prepared = prepareSession(entry, agent, target);
    return await store.locked(target.id, "import --update", (locked) => {
      const plan = planUpdate(locked.load(), prepared);
      return applyUpdate(locked, plan, prepared);
    });
  } finally {
    batch.release?.();
  }
}

/** What `--update` did with opencode's database (or one of its documents). */
export interface OpencodeUpdateOutcome {
  /** One per session a conversation came from, in the database's order (nothing new too). */
  readonly sessions: readonly AgentUpdateOutcome[];
  /** Sessions of the database no conversation came from: left as they are. */
  readonly notImported: number;
}

/**
 * `import opencode.db --update` (or a document `opencode export` printed): opencode keeps every
 * session in one database, so every session a conversation came from (imported from it, or
 * exported to it) is brought back, each as a session file is. Every one is checked before anything is written: a session whose
 * records changed refuses the whole update, naming it, and nothing is appended anywhere.
 */
export async function updateFromOpencode(
  store: Store,
  path: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<OpencodeUpdateOutcome> {
  const batch = await readAgentImport(path, "opencode", env);
  try {
    const sessions = batch.files.flatMap((entry) => {
      const target = findTarget(store, entry, "opencode");
      return target === undefined ? [] : [prepareSession(entry, "opencode", target)];
    });
    if (sessions.length === 0) {
      throw batch.files.length === 1
        ? noConversationCameFrom(batch.files[0]!.file, "opencode")
        : new CxcError(
            "conversation-not-found",
            `no conversation came from ${path}: none of its ${batch.files.length} opencode sessions was imported`,
            { hint: `import them as conversations of their own: cxc conversation import ${path}` },
          );
    }
    // Checked first, all of them: a refusal leaves every conversation as it was.
    for (const prepared of sessions)
      await store.locked(prepared.target.id, "import --update", (locked) =>
        planUpdate(locked.load(), prepared),
      );
    const outcomes: AgentUpdateOutcome[] = [];
    for (const prepared of sessions) {
      outcomes.push(
        await store.locked(prepared.target.id, "import --update", (locked) =>
          applyUpdate(locked, planUpdate(locked.load(), prepared), prepared),
        ),
      );
    }
    return { sessions: outcomes, notImported: batch.files.length - sessions.length };
  } finally {
    batch.release?.();
  }
}

function noConversationCameFrom(file: string, agent: AgentFormat): CxcError {
  return new CxcError(
    "conversation-not-found",
    `no conversation came from ${file}: it was neither imported from this ${AGENT_NAMES[agent]} session nor exported to it`,
    { hint: `import it as a conversation of its own: cxc conversation import ${file}` },
  );
}

/** A session converted again, with the conversation it leads back to. */
interface PreparedSession {
  readonly agent: AgentFormat;
  readonly file: string;
  readonly target: Target;
  readonly converted: ConvertedSession;
  readonly warnings: readonly string[];
}

function prepareSession(entry: AgentFileImport, agent: AgentFormat, target: Target): PreparedSession {
  const converted: ConvertedSession = { events: [], lines: [] };
  const end = convertSessionFile(entry.file, entry.plan, (events, lines) => {
    converted.events.push(...events);
    converted.lines.push(...lines);
  });
  if (!end.ok) throw new CxcError("import-invalid", end.message);
  return { agent, file: entry.file, target, converted, warnings: end.value.warnings };
}

/** What an update appends, and where the conversation holds the session's events before it. */
interface UpdatePlan {
  readonly fresh: readonly ConversationEvent[];
  readonly ranges: readonly LogRange[];
  /** `usage` records for held events the session has usage for and the conversation lacks. */
  readonly usage: readonly UsageReport[];
}

/** Checks what the conversation holds of the session; throws the refusal naming the first change. */
function planUpdate(loaded: LoadedConversation, prepared: PreparedSession): UpdatePlan {
  const { target, converted, file, agent } = prepared;
  const from = target.via === "export" ? viewLength(loaded, converted, file, agent, target.entry) : 0;
  const ranges =
    target.via === "import" ? importedRanges(loaded, converted) : (target.entry.session_events ?? []);
  const positions = ranges.flatMap(([start, count]) =>
    Array.from({ length: count }, (_, index) => start + index),
  );
  const held = positions.map((position) => loaded.events[position]!);
  const aligned = align(held, converted.events, from);
  if ("differs" in aligned) throw differs(loaded, held, positions, aligned.differs, converted);
  if (aligned.fresh.length > 0)
    refuseMisplacedContinuation(loaded, aligned.fresh, positions.at(-1), target, file);
  const usage = usageBackfill(
    held,
    converted.events,
    aligned.pairs,
    usageReader(loaded.events),
    timestampNow(),
  );
  return { fresh: aligned.fresh, ranges, usage };
}

function applyUpdate(
  locked: LockedConversation,
  plan: UpdatePlan,
  prepared: PreparedSession,
): AgentUpdateOutcome {
  const loaded = locked.load();
  const { target } = prepared;
  const outcome = {
    agent: prepared.agent,
    file: prepared.file,
    id: target.id,
    via: target.via,
    warnings: prepared.warnings,
  } as const;
  const { usage } = plan;
  // An agent may record one request's usage on several records: each request counts once.
  const requests = new Set(usage.map((record) => String(record.usage.request ?? record.event))).size;
  if (plan.fresh.length === 0) {
    if (usage.length > 0) locked.append(usage);
    return { ...outcome, appended: 0, usage: requests, newTurns: 0, turns: countTurns(loaded.events) };
  }
  // The readers derive ids from positions in the session: one the log has already gets a new id.
  const ids = new Set(loaded.events.map(idOf));
  const appended = plan.fresh.map((event) =>
    event.type === "unknown" || !ids.has(event.id) ? event : { ...event, id: newEventId() },
  );
  const start = loaded.events.length + usage.length;
  locked.append([...usage, ...appended]);
  locked.updateMeta((meta) => recordRanges(meta, target, [...plan.ranges, [start, appended.length]]));
  const newTurns = appended.filter((event) => event.type === "turn_start").length;
  return {
    ...outcome,
    appended: appended.length,
    usage: requests,
    newTurns,
    turns: countTurns(loaded.events) + newTurns,
  };
}

type Target =
  | { readonly via: "import"; readonly id: string }
  | { readonly via: "export"; readonly id: string; readonly entry: RecordedExport; readonly index: number };

/** The conversation a session leads back to: imported from it, else exported to it. */
function findTarget(store: Store, entry: AgentFileImport, agent: AgentFormat): Target | undefined {
  const importedId = entry.conversation.id;
  const origin = entry.conversation.extra[ORIGIN_META_KEY] as { session_id?: unknown } | undefined;
  const sessionId = typeof origin?.session_id === "string" ? origin.session_id : undefined;
  if (store.locate(importedId) !== undefined) return { via: "import", id: importedId };
  if (sessionId === undefined) return undefined;
  for (const archived of [false, true]) {
    for (const { meta } of store.list({ archived }).conversations) {
      const index = exportsOf(meta).findIndex(
        (exported) => exported.agent === agent && exported.session_id === sessionId,
      );
      if (index >= 0) return { via: "export", id: meta.id, entry: exportsOf(meta)[index]!, index };
    }
  }
  return undefined;
}

/**
 * Where an imported conversation holds the session's events: as recorded; for one imported before
 * cxc recorded it, its first events, as far as they are the session's (in order, as they were).
 */
function importedRanges(loaded: LoadedConversation, converted: ConvertedSession): readonly LogRange[] {
  const origin = loaded.meta[ORIGIN_META_KEY] as { session_events?: unknown } | undefined;
  if (Array.isArray(origin?.session_events)) return origin.session_events as LogRange[];
  // The longest start of the log that is the session's, in order (settings aside).
  let count = 0;
  let next = 0;
  const session = converted.events;
  for (const event of loaded.events) {
    if (event.type !== "config_delta") {
      while (next < session.length && session[next]!.type === "config_delta") next += 1;
      if (next >= session.length || comparable(session[next]!) !== comparable(event)) break;
      next += 1;
    }
    count += 1;
  }
  return [[0, count]];
}

/**
 * An export resumed in its agent: the session must still begin with the lines the export wrote;
 * returns how many of the session's events those lines make (they stand for turns the
 * conversation has already).
 */
function viewLength(
  loaded: LoadedConversation,
  converted: ConvertedSession,
  file: string,
  agent: AgentFormat,
  entry: RecordedExport,
): number {
  if (entry.view_hashes !== undefined) return viewLengthByEvents(loaded, converted, file, entry.view_hashes);
  const lines = readFileSync(file, "utf8").split("\n");
  for (let index = 0; index < entry.lines; index++) {
    const line = lines[index]?.replace(/\r$/, "");
    if (line === undefined || lineHash(line) !== entry.line_hashes[index]) {
      throw new CxcError(
        "import-conflict",
        `${file}: line ${index + 1} is not the line cxc exported there (the session's first ${entry.lines} lines are the compacted view of ${loaded.meta.id}); --update only appends what came after them`,
        { hint: `import it as a conversation of its own: cxc conversation import ${file}` },
      );
    }
  }
  const head = importSessionText(`${lines.slice(0, entry.lines).join("\n")}\n`, sessionReader(file, agent));
  if (!head.ok) throw new CxcError("import-invalid", head.message);
  const aligned = align(head.value.conversation.events, converted.events, 0);
  if ("differs" in aligned) {
    throw new CxcError(
      "import-conflict",
      `${file}: the session no longer reads as the view cxc exported, from line ${converted.lines[aligned.differs] ?? entry.lines}`,
      { hint: `import it as a conversation of its own: cxc conversation import ${file}` },
    );
  }
  return aligned.next;
}

/**
 * opencode's session, exported to it and resumed: its first events (settings aside) must be those
 * the exported session converted to; returns how many of the session's events they make.
 */
function viewLengthByEvents(
  loaded: LoadedConversation,
  converted: ConvertedSession,
  file: string,
  hashes: readonly string[],
): number {
  const events = converted.events;
  let next = 0;
  for (const [index, hash] of hashes.entries()) {
    while (next < events.length && events[next]!.type === "config_delta") next += 1;
    if (next >= events.length || eventHash(events[next]!) !== hash) {
      const what = next < events.length ? `: ${describeEvent(events[next]!, turnNumbers(events)[next])}` : "";
      throw new CxcError(
        "import-conflict",
        `${file}: the session no longer begins with the compacted view of ${loaded.meta.id} cxc exported there (event ${index + 1} of ${hashes.length} differs${what}); --update only appends what came after it`,
        { hint: `import it as a conversation of its own: cxc conversation import ${file}` },
      );
    }
    next += 1;
  }
  return next;
}

function idOf(event: ConversationEvent): string | undefined {
  return event.type === "unknown" ? (event.raw.id as string | undefined) : event.id;
}

/** The refusal naming the first event brought in that the session no longer has as it was. */
function differs(
  loaded: LoadedConversation,
  held: readonly ConversationEvent[],
  positions: readonly number[],
  index: number,
  converted: ConvertedSession,
): CxcError {
  const event = held[index]!;
  const turn = turnNumbers(loaded.events)[positions[index]!];
  const where =
    converted.events.length === 0
      ? ""
      : ` (the file has ${formatCount(converted.events.length, "event")} now)`;
  return new CxcError(
    "import-conflict",
    `${loaded.meta.id}: ${describeEvent(event, turn)}, brought in from the session, is not in the file as it was${where}; --update only appends records after those it holds`,
    { hint: "import the session as a conversation of its own (without --update) to keep both" },
  );
}

/**
 * New events that continue the last turn brought in (no `turn_start` first) would land in a turn
 * cxc added since: refused.
 */
function refuseMisplacedContinuation(
  loaded: LoadedConversation,
  fresh: readonly ConversationEvent[],
  lastHeld: number | undefined,
  target: Target,
  file: string,
): void {
  const first = fresh.find((event) => event.type !== "config_delta");
  if (first === undefined || first.type === "turn_start") return;
  // An export nothing was brought back from yet continues the conversation's last turn of then.
  const after = lastHeld !== undefined ? lastHeld + 1 : target.via === "export" ? undefined : 0;
  const own =
    after === undefined
      ? countTurns(loaded.events) !== (target as Extract<Target, { via: "export" }>).entry.turns
      : loaded.events.slice(after).some((event) => isTurnEvent(event));
  if (!own) return;
  throw new CxcError(
    "import-conflict",
    `${file} continues the last turn ${loaded.meta.id} holds of it, but the conversation has turns of its own after that turn; --update would put the session's records into them`,
    {
      hint: "import the session as a conversation of its own (without --update), or fork the conversation first",
    },
  );
}

/** The metadata with where the conversation now holds the session's events. */
function recordRanges(meta: ConversationMeta, target: Target, ranges: readonly LogRange[]): ConversationMeta {
  const merged: LogRange[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && last[0] + last[1] === range[0])
      merged[merged.length - 1] = [last[0], last[1] + range[1]];
    else if (range[1] > 0) merged.push(range);
  }
  if (target.via === "import") {
    const origin = (meta as Record<string, unknown>)[ORIGIN_META_KEY] as Record<string, unknown>;
    return { ...meta, [ORIGIN_META_KEY]: { ...origin, session_events: merged } } as ConversationMeta;
  }
  const entries = exportsOf(meta).map((entry, index) =>
    index === target.index ? { ...entry, session_events: merged } : entry,
  );
  return { ...meta, [EXPORTS_META_KEY]: entries } as ConversationMeta;
}
