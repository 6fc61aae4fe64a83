/**
 * What the readers of other agents' session files (Claude Code: claude-code.ts, pi: pi.ts, Codex:
 * codex.ts) share. Pure.
 *
 * All read a session in two passes (`SessionIndexer`, `SessionPlan`, `SessionConverter`): the
 * first parses every line and keeps a small index entry per record (ids, parent, type, line) to
 * find the conversation's chain; the second turns the records on it into events, handing out each
 * event as soon as nothing later can change it. Each line is parsed once: the first pass keeps the
 * records the second converts (`SessionPlan.records`), or, for an import of a chain reader's
 * session, converts them as it reads them on the bet that the chain is every record read
 * (`SessionLineIndexer.convertAsRead`), checked when the chain is known. A reader told not to keep them (the shell's,
 * for a file too large to hold) keeps only the index, and the second pass reads and parses the
 * chain's lines again, so a file of any size streams. Errors name the file and the line.
 * `importSessionText` runs both passes over a whole text (tests, small files). See
 * docs/import-export.md for the mappings.
 */
import type {
  CompactionOrigin,
  CompactionSource,
  ConversationEvent,
  NativeSummary,
} from "../conversation/events.js";
import { prepare } from "../../compaction/core/prepare.js";
import { realize } from "../../compaction/core/realize.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import { AGENT_NAMES, type AgentFormat, ORIGIN_META_KEY } from "./agents.js";
import type { ImportedConversation } from "./jp.js";
import { interopError, validateEvent } from "./jp.js";
import {
  deriveConversationId,
  eventIdDeriver,
  isoTimestamp,
  isRecord,
  timestampMilliseconds,
} from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

export { ANTHROPIC_SIGNATURE_KEY };
export { AGENT_FORMATS, AGENT_NAMES, type AgentFormat, type ExportAgent, ORIGIN_META_KEY } from "./agents.js";

/** What an import read and what it left out, for the import summary. */
export interface AgentImportSummary {
  readonly agent: AgentFormat;
  /** Lines read. */
  readonly lines: number;
  /** Turns imported. */
  readonly turns: number;
  /** The agent's own compactions imported as overlays. */
  readonly compactions: number;
  /** Records left out on purpose, by kind (bookkeeping, command echoes, API error notices, …). */
  readonly skipped: Readonly<Record<string, number>>;
  /** Records of types this reader does not know, by type; skipped. */
  readonly unknown: Readonly<Record<string, number>>;
  /**
   * Content this reader does not know inside records it does (a content block or part, by kind);
   * left out. See agent-versions.ts.
   */
  readonly unknownFields?: Readonly<Record<string, number>>;
  /** The agent's version as the records carry it (pi: the session format), when they do. */
  readonly version?: string;
  /** Records of side chains (subagents) in the file; left out. */
  readonly sideChainRecords: number;
  /** Branches the session left (edited or rewound prompts) and the records on them; left out. */
  readonly abandonedBranches: number;
  readonly abandonedRecords: number;
}

/** A converted session: the conversation, what was left out, and notes. */
export interface AgentImport {
  readonly conversation: ImportedConversation;
  readonly summary: AgentImportSummary;
  readonly warnings: readonly string[];
}

/**
 * The conversation an agent's session becomes, without its events and title: its id derived from
 * the session's key (`agent:session id`) and start, and where it came from (`origin`).
 */
export function sessionConversation(
  key: string,
  createdAt: string,
  origin: Record<string, unknown>,
): SessionPlan["conversation"] {
  return {
    id: deriveConversationId(timestampMilliseconds(createdAt), key),
    sourceId: key,
    createdAt,
    archived: false,
    extra: { [ORIGIN_META_KEY]: origin },
  };
}

/** `added`'s counts added to a copy of `counts` (its keys first, in their order). */
export function addedCounts(
  counts: Readonly<Record<string, number>>,
  added: Readonly<Record<string, number>>,
): Record<string, number> {
  const sum = { ...counts };
  for (const [key, by] of Object.entries(added)) count(sum, key, by);
  return sum;
}

/** Increments `counts[key]`. */
export function count(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** The warning for a last line left out by `addFinalFragment`. */
export function incompleteLastLine(where: string, agent: string): string {
  return `${where}: the last line is incomplete (${agent} may still be writing); it was left out`;
}

/**
 * Parses one line as a JSON object with a string `type`, or says what is wrong with it. `where` is
 * `file:line`.
 */
export function parseRecordLine(
  text: string,
  where: string,
  agent: AgentFormat,
): Parsed<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.replace(/\s*in JSON at position \d+.*$/s, "");
    return interopError(`${where}: not valid JSON (${reason}); not a ${AGENT_NAMES[agent]} session line`);
  }
  if (!isRecord(value))
    return interopError(`${where}: a ${AGENT_NAMES[agent]} session line is a JSON object`);
  if (typeof value.type !== "string") {
    return interopError(`${where}: not a ${AGENT_NAMES[agent]} session record (it has no string \`type\`)`);
  }
  return { ok: true, value };
}

/** A draft event: its fields without `id`; `ts` as the agent wrote it. */
export type EventDraft = Record<string, unknown> & { type: string; ts: string };

/** Pass 1 over a session's lines: validates each and keeps an index of its records. */
export interface SessionIndexer {
  /** Reads the next line (without its newline). */
  addLine(text: string): Parsed<void>;
  /**
   * Reads text after the file's last newline: a line the agent may still have been writing.
   * Complete JSON is read as a line; anything else is left out with a warning.
   */
  addFinalFragment(text: string): Parsed<void>;
  /** What the index says: the conversation's identity and the lines pass 2 converts. */
  finish(): Parsed<SessionPlan>;
}

/**
 * What the line readers' first pass shares: the file's label, the line being read (1-based, for
 * `file:line` in errors), the warnings, and the last line, which the agent may still be writing.
 */
export abstract class SessionLineIndexer implements SessionIndexer {
  protected line = 0;
  protected readonly warnings: string[] = [];
  /** The records pass 2 converts, by line, when they are kept (`SessionPlan.records`). */
  protected readonly records: KeptRecords | undefined;
  /**
   * Whether pass 2 checks each event against the event schemas (`EventFinisher`). An import does:
   * its events go to the store. `cxc mcp` turns it off (session-lines.ts): it only reads them for
   * recall and writes nothing, and checking cxc's own drafts again was a quarter of its first recall.
   */
  validateEvents = true;

  /**
   * `format`: the records' agent, whose name errors about a line give; `writer`: how the warning
   * about an incomplete last line names who may still be writing it; `keep`: whether to keep the
   * records pass 2 converts (else pass 2 parses their lines again).
   */
  constructor(
    protected readonly label: string,
    private readonly format: AgentFormat,
    private readonly writer: string,
    keep: boolean,
  ) {
    this.records = keep ? { lines: [], records: [] } : undefined;
  }

  /** Converting while reading (`convertAsRead`): what was converted so far, and by whom. */
  private early: EarlyConversion | undefined;

  /** Keeps the record of the line being read for pass 2, when records are kept. */
  protected keep(record: Record<string, unknown>): void {
    if (this.records === undefined) return;
    this.records.lines.push(this.line);
    this.records.records.push(record);
  }

  /**
   * Converts the records as they are read instead of keeping them for pass 2, betting that the
   * conversation's chain holds every record the reader would keep (a session nobody rewound or
   * edited): each batch of events goes to `take` as it settles. `finish` checks the bet: won, the
   * plan is `convertedAsRead` (pass 2 only finishes its converter); lost, or a record failed to
   * convert, or `take` answered false, the plan keeps no records and pass 2 reads the chain's
   * lines again, as for a file too large to keep (what `take` got must then be thrown away). The
   * events belong to the conversation `earlyConversation` names, known before the first batch.
   * Call it before the first line; a reader without a chain plan (`earlyConverter`) keeps its
   * records as before.
   */
  convertAsRead(take: (events: readonly ConversationEvent[]) => boolean): void {
    this.early = { take, included: new Map(), start: undefined, lost: false };
  }

  /**
   * The conversation `convertAsRead`'s events belong to if its bet holds (its id and creation
   * time, from the session's key and first record); undefined before the first record.
   */
  get earlyConversation(): { readonly id: string; readonly createdAt: string } | undefined {
    return this.early?.start?.conversation;
  }

  /**
   * The record of the line being read, on the chain with `id` if the bet of `convertAsRead` holds:
   * converted now when converting as read (true), else false (then the reader keeps it).
   */
  protected convertNow(record: Record<string, unknown>, id: string): boolean {
    const early = this.early;
    if (early === undefined) return false;
    if (early.lost) return true;
    early.included.set(this.line, id);
    if (early.start === undefined) {
      const start = this.earlyConverter(early.included, record);
      if (start === undefined) {
        // A reader that cannot convert before its plan (the first record asks): it keeps them.
        this.early = undefined;
        return false;
      }
      const createdAt = start.createdAt;
      const id = deriveConversationId(timestampMilliseconds(createdAt), start.key);
      early.start = { converter: start.converter, conversation: { id, createdAt } };
    }
    const converted = early.start.converter.addRecord(record, this.line);
    if (!converted.ok) {
      // Pass 2 converts the chain's lines again, and says what is wrong if it is on the chain.
      early.lost = true;
      return true;
    }
    // `take` may call the bet off (the conversation exists already, say): pass 2 reads again.
    if (converted.value.length > 0 && !early.take(converted.value)) early.lost = true;
    return true;
  }

  /**
   * The converter `convertAsRead` feeds, for a chain of the records in `included` (line → id,
   * growing as they are read), asked at the first record (`first`), with the session's key and
   * the conversation's creation time if that chain is the conversation's; undefined for a reader
   * that cannot convert before its plan.
   */
  protected earlyConverter(
    _included: ReadonlyMap<number, string>,
    _first: Record<string, unknown>,
  ): EarlyStart | undefined {
    return undefined;
  }

  /**
   * The plan of a reader that follows a chain of records (Claude Code's uuids, pi's entry ids):
   * pass 2 wants the lines on the chain (`included`) and no others. Converting as read, the bet
   * is checked here: the converter fed so far goes on under the plan's when the chain is exactly
   * the records it was fed (`SessionConverter.rebase`).
   */
  protected chainPlan(
    conversation: SessionPlan["conversation"],
    included: ReadonlyMap<number, string>,
    convert: () => SessionConverter,
  ): Parsed<SessionPlan> {
    const early = this.early;
    this.early = undefined;
    if (early === undefined)
      return chainLinesPlan(conversation, included, this.warnings, this.records, convert);
    const converter = early.lost ? undefined : early.start?.converter;
    if (
      converter !== undefined &&
      early.start?.conversation.id === conversation.id &&
      early.included.size === included.size &&
      converter.rebase(convert(), Number.POSITIVE_INFINITY)
    ) {
      return {
        ok: true,
        value: {
          conversation,
          lines: 0,
          warnings: this.warnings,
          wants: () => false,
          convertedAsRead: true,
          convert: () => converter,
        },
      };
    }
    // Lost: nothing was kept, so pass 2 reads the chain's lines again.
    return chainLinesPlan(conversation, included, this.warnings, undefined, convert);
  }

  /** Reads the next line: counts it, passes over a blank one, and hands the record on. */
  addLine(text: string): Parsed<void> {
    this.line += 1;
    if (text.trim() === "") return { ok: true, value: undefined };
    const where = `${this.label}:${this.line}`;
    const parsed = this.parseLine(text, where);
    if (!parsed.ok) return parsed;
    return this.addRecord(parsed.value, where);
  }

  /**
   * Reads the next line as `SessionLines` parsed it (undefined: a blank line), without parsing it
   * again: the same as `addLine` with its text.
   */
  addParsedLine(record: Record<string, unknown> | undefined): Parsed<void> {
    this.line += 1;
    if (record === undefined) return { ok: true, value: undefined };
    return this.addRecord(record, `${this.label}:${this.line}`);
  }

  /** A line as a record: a JSON object with a string `type` (`parseRecordLine`). */
  protected parseLine(text: string, where: string): Parsed<Record<string, unknown>> {
    return parseRecordLine(text, where, this.format);
  }

  /** Indexes one record; `where` is `file:line`. */
  protected abstract addRecord(record: Record<string, unknown>, where: string): Parsed<void>;
  abstract finish(): Parsed<SessionPlan>;

  addFinalFragment(text: string): Parsed<void> {
    if (text.trim() === "") return { ok: true, value: undefined };
    try {
      JSON.parse(text);
    } catch {
      this.line += 1;
      this.warnings.push(incompleteLastLine(`${this.label}:${this.line}`, this.writer));
      return { ok: true, value: undefined };
    }
    return this.addLine(text);
  }
}

/**
 * The summary an early converter (`SessionLineIndexer.earlyConverter`) starts under: none is
 * known before the plan, and the converter goes on under the plan's (`SessionConverter.rebase`)
 * before it finishes.
 */
export function summaryToCome(agent: AgentFormat): AgentImportSummary {
  return {
    agent,
    lines: 0,
    turns: 0,
    compactions: 0,
    skipped: {},
    unknown: {},
    unknownFields: {},
    sideChainRecords: 0,
    abandonedBranches: 0,
    abandonedRecords: 0,
  };
}

/** A converter fed records as they are read, and able to go on under the plan found after. */
type EarlyConverter = SessionConverter & Required<Pick<SessionConverter, "addRecord" | "rebase">>;

/** What `SessionLineIndexer.earlyConverter` gives: the converter, and whose events it makes. */
export interface EarlyStart {
  readonly converter: EarlyConverter;
  /** The session's key (`agent:session id`), as the plan will have it. */
  readonly key: string;
  readonly createdAt: string;
}

/** The state of `SessionLineIndexer.convertAsRead`. */
interface EarlyConversion {
  readonly take: (events: readonly ConversationEvent[]) => boolean;
  /** Line → id of every record converted: the chain the bet is on. */
  readonly included: Map<number, string>;
  /** From the first record: the converter, and the conversation its events belong to. */
  start:
    | { readonly converter: EarlyConverter; readonly conversation: { id: string; createdAt: string } }
    | undefined;
  /** A record failed to convert, or `take` called the bet off. */
  lost: boolean;
}

/**
 * The records pass 1 kept, in file order: `records[i]` is line `lines[i]`'s (two lists, not a map
 * by line: a map of some 40,000 lines cost a tenth of the parse that filled it).
 */
export interface KeptRecords {
  readonly lines: number[];
  readonly records: Record<string, unknown>[];
}

/** What pass 1 found: who the conversation is, and how to convert it in pass 2. */
export interface SessionPlan {
  /** The new conversation without its events and title (both come out of pass 2). */
  readonly conversation: Omit<ImportedConversation, "events" | "title">;
  /** The last line pass 2 wants (1-based; 0 when it wants none): it may stop reading there. */
  readonly lines: number;
  /** What pass 1 noted (an incomplete last line, a missing parent); `SessionEnd` repeats it. */
  readonly warnings: readonly string[];
  /**
   * The session holds no prompt (Gemini CLI leaves such files beside a resumed session): a folder's
   * import passes over it, a file's import refuses it.
   */
  readonly empty?: boolean;
  /**
   * Pass 1 converted the records as it read them (`SessionLineIndexer.convertAsRead`) and the
   * bet held: their events went to its `take`; pass 2 feeds the converter nothing and only
   * finishes it (`lines` is 0).
   */
  readonly convertedAsRead?: boolean;
  /** Whether pass 2 needs line `line` (1-based); every other line may be skipped unread. */
  wants(line: number): boolean;
  /**
   * The records of the lines pass 2 wants, in file order, when pass 1 kept them: fed to the
   * converter's `addRecord`, the file is not read again.
   */
  readonly records?: KeptRecords;
  /**
   * A converter for pass 2. Feed it the kept records (`addRecord`), or else the file's lines
   * again from the first, each wanted one at least (`addLine(text, line)`); the others may be
   * left out.
   */
  convert(): SessionConverter;
}

/** Pass 2: the lines the plan wants in, the conversation's events out, a few at a time. */
export interface SessionConverter {
  /** Converts line `line` (1-based); returns the events that nothing later can change. */
  addLine(text: string, line: number): Parsed<ConversationEvent[]>;
  /**
   * `addLine` for a line parsed already: the record pass 1 kept (`SessionPlan.records`), or one
   * `SessionLines` keeps (`cxc mcp`); a converter without it is fed the lines.
   */
  addRecord?(record: Record<string, unknown>, line: number): Parsed<ConversationEvent[]>;
  /**
   * The events still held, as `finish` would hand them out now, while the converter goes on (the
   * lines appended later are fed to it): `SessionLines.events`.
   */
  peek?(): Parsed<ConversationEvent[]>;
  /**
   * Goes on under `later`, a converter of the plan pass 1 made after more lines were appended,
   * when that plan converts lines 1 to `converted` (those fed so far) as this one's did; false
   * when it does not (the chain moved, a compaction changed what the reader keeps): then convert
   * again from the first line.
   */
  rebase?(later: SessionConverter, converted: number): boolean;
  /**
   * For a reader that holds what it converts (Gemini CLI's, whose pass 1 replays the log and keeps
   * the last version of each message): converts it all, handing each batch of events to `take` as
   * it settles, before `finish` hands out the rest. No line is fed to such a converter.
   */
  convertHeld?(take: (events: readonly ConversationEvent[]) => void): Parsed<void>;
  /** The events still held, and what the conversation came to. */
  finish(): Parsed<SessionEnd>;
}

/** The end of pass 2. */
export interface SessionEnd {
  /** The last events (after every event `addLine` returned). */
  readonly events: readonly ConversationEvent[];
  readonly title?: string;
  readonly summary: AgentImportSummary;
  /** Everything of note from both passes, in the order found. */
  readonly warnings: readonly string[];
}

/** The largest of some line numbers; 0 for none. */
export function lastLine(lines: Iterable<number>): number {
  let last = 0;
  for (const line of lines) last = Math.max(last, line);
  return last;
}

/** Both passes over a whole session text; the conversation comes out whole. */
export function importSessionText(text: string, indexer: SessionIndexer): Parsed<AgentImport> {
  const lines = text.split("\n");
  const fragment = lines.pop() ?? "";
  for (const line of lines) {
    const added = indexer.addLine(line);
    if (!added.ok) return added;
  }
  const last = indexer.addFinalFragment(fragment);
  if (!last.ok) return last;
  lines.push(fragment);
  return convertSession(indexer, lines.length, (converter, line) =>
    converter.addLine(lines[line - 1]!, line),
  );
}

/**
 * Pass 2, after pass 1 read `count` lines into `indexer`: the records pass 1 kept go to the
 * converter, or else `convertLine` hands it each line the plan wants; the conversation comes out
 * whole.
 */
export function convertSession(
  indexer: SessionIndexer,
  count: number,
  convertLine: (converter: SessionConverter, line: number) => Parsed<ConversationEvent[]>,
): Parsed<AgentImport> {
  const plan = indexer.finish();
  if (!plan.ok) return plan;
  const converter = plan.value.convert();
  const events: ConversationEvent[] = [];
  const kept = convertKept(plan.value, converter, (batch) => {
    for (const event of batch) events.push(event);
  });
  if (kept === undefined) {
    const last = Math.min(count, plan.value.lines);
    for (let line = 1; line <= last; line++) {
      if (!plan.value.wants(line)) continue;
      const converted = convertLine(converter, line);
      if (!converted.ok) return converted;
      for (const event of converted.value) events.push(event);
    }
  } else if (!kept.ok) return kept;
  const held = converter.convertHeld?.((batch) => {
    for (const event of batch) events.push(event);
  });
  if (held !== undefined && !held.ok) return held;
  const end = converter.finish();
  if (!end.ok) return end;
  for (const event of end.value.events) events.push(event);
  const { title, summary, warnings } = end.value;
  return {
    ok: true,
    value: {
      conversation: { ...plan.value.conversation, ...(title === undefined ? {} : { title }), events },
      summary,
      warnings,
    },
  };
}

/**
 * Pass 2 over the records pass 1 kept (`SessionPlan.records`): each one to the converter's
 * `addRecord` (which makes nothing of those the plan does not want), in file order, each batch of
 * events to `take` with its line. Undefined when the
 * plan kept none (pass 2 then reads the lines again).
 */
export function convertKept(
  plan: SessionPlan,
  converter: SessionConverter,
  take: (events: readonly ConversationEvent[], line: number) => void,
): Parsed<void> | undefined {
  if (plan.records === undefined || converter.addRecord === undefined) return undefined;
  const { lines, records } = plan.records;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line > plan.lines) break;
    // A line the plan does not want converts to nothing (`SessionPlan.convert`): not asked first.
    const converted = converter.addRecord(records[index]!, line);
    if (!converted.ok) return converted;
    if (converted.value.length > 0) take(converted.value, line);
  }
  return { ok: true, value: undefined };
}

/**
 * Turns drafts into validated events, a batch at a time, with ids derived from the session key
 * and each draft's position in the conversation (importing the same file twice gives the same
 * events). The position is part of the id, so ids never repeat within a conversation.
 */
export class EventFinisher {
  private position = 0;
  /** The last timestamp read, and its milliseconds (the events of one record share it). */
  private lastTs = "";
  private lastMilliseconds = Number.NaN;
  private readonly eventId: (milliseconds: number, position: number) => string;

  /** `validate`: check each event against the event schemas (see `SessionLineIndexer.validateEvents`). */
  constructor(
    key: string,
    private readonly validate = true,
  ) {
    this.eventId = eventIdDeriver(key);
  }

  finish(drafts: readonly { draft: EventDraft; where: string }[]): Parsed<ConversationEvent[]> {
    const events: ConversationEvent[] = [];
    for (const { draft, where } of drafts) {
      if (draft.ts !== this.lastTs) {
        this.lastTs = draft.ts;
        this.lastMilliseconds = timestampMilliseconds(draft.ts);
      }
      const milliseconds = this.lastMilliseconds;
      const id = this.eventId(Number.isNaN(milliseconds) ? 0 : milliseconds, this.position);
      this.position += 1;
      const event = withId(id, draft);
      if (!this.validate) {
        events.push(event as unknown as ConversationEvent);
        continue;
      }
      const checked = validateEvent(event, where);
      if (!checked.ok) return checked;
      events.push(checked.value);
    }
    return { ok: true, value: events };
  }

  /**
   * The end of pass 2 as every reader gives it: the last drafts finished (or the problem that
   * stopped them), with the title (the session's own name, else the first prompt's:
   * `titleFromPrompt`), the summary and the warnings.
   */
  end(
    drafts: readonly { draft: EventDraft; where: string }[],
    title: string | undefined,
    summary: AgentImportSummary,
    warnings: readonly string[],
  ): Parsed<SessionEnd> {
    const events = this.finish(drafts);
    if (!events.ok) return events;
    return {
      ok: true,
      value: { events: events.value, ...(title === undefined ? {} : { title }), summary, warnings },
    };
  }

  /**
   * The events `drafts` would become if they were finished now, for a converter that goes on
   * (`SessionConverter.peek`): the position does not move on.
   */
  peek(drafts: readonly { draft: EventDraft; where: string }[]): Parsed<ConversationEvent[]> {
    const position = this.position;
    const events = this.finish(drafts);
    this.position = position;
    return events;
  }
}

/**
 * A draft with its id, its fields in the order the event schemas return them (`id`, `ts`,
 * `metadata`, `requires`, then the draft's others as they come): checking it then gives it back as
 * it is, not a copy in that order.
 */
function withId(id: string, draft: EventDraft): Record<string, unknown> {
  const event: Record<string, unknown> = { id, ts: draft.ts };
  if (draft.metadata !== undefined) event.metadata = draft.metadata;
  if (draft.requires !== undefined) event.requires = draft.requires;
  for (const key of Object.keys(draft)) {
    if (key !== "ts" && key !== "metadata" && key !== "requires") event[key] = draft[key];
  }
  return event;
}

/** `EventFinisher` over a whole list of drafts. */
export function finishEvents(
  drafts: readonly { draft: EventDraft; where: string }[],
  key: string,
): Parsed<ConversationEvent[]> {
  return new EventFinisher(key).finish(drafts);
}

/**
 * Normalizes an agent's timestamp to RFC 3339 UTC (`2026-12-01T10:12:32.954Z`); a number is epoch
 * milliseconds. Undefined when it is neither.
 */
export function agentTimestamp(value: unknown): string | undefined {
  if (typeof value === "number") return isoTimestamp(value);
  if (typeof value !== "string") return undefined;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value)) return value;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
}

/** A title from the first prompt: its first line, at most 80 characters. */
export function titleFromPrompt(prompt: string | undefined): string | undefined {
  const line = prompt
    ?.split("\n")
    .map((part) => part.trim())
    .find((part) => part !== "");
  if (line === undefined) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The agent's own compaction as a draft overlay: turns 0..`toTurn` (0-based) replaced by the
 * agent's summary, supplied by the agent's model. An `imported` request of the compaction slice,
 * prepared and realized as every compaction is (the agent decided the range, so the events are not
 * read); the id comes with the other drafts' in `finishEvents`.
 */
export function agentCompactionDraft(compaction: {
  readonly ts: string;
  readonly toTurn: number;
  readonly summary: string;
  readonly source: CompactionSource;
  readonly note: string;
  readonly origin: CompactionOrigin;
  readonly native?: NativeSummary;
  readonly facts?: string;
}): EventDraft {
  const preparation = prepare([], { kind: "imported", ...compaction }, { now: compaction.ts });
  if (preparation.kind !== "planned") throw new Error("an imported compaction always plans");
  const [event] = realize(preparation, [], { newEventId: () => "", now: () => compaction.ts }).compactions;
  const { id: _placeholder, ...draft } = event!;
  return draft;
}

/** The model as a cxc config delta (`{assistant: {model: {id}}}`, jp's key). */
export function modelDelta(id: string, ts: string): EventDraft {
  return { type: "config_delta", ts, delta: { assistant: { model: { id } } } };
}

/** The model id a `config_delta` sets, if it sets one. */
export function modelOf(event: ConversationEvent): string | undefined {
  if (event.type !== "config_delta") return undefined;
  const assistant = event.delta.assistant;
  if (!isRecord(assistant) || !isRecord(assistant.model)) return undefined;
  return typeof assistant.model.id === "string" ? assistant.model.id : undefined;
}

/**
 * Tracks where turns begin while drafts are built, so a reader can place a model change before the
 * turn it applies to and find the turn a record ended up in.
 *
 * `takeSettled` hands out the drafts nothing can change any more, so a streaming reader holds only
 * the tail: a model change may still go before the open turn while the assistant has not
 * answered in it, and the last draft may still get metadata; everything before that is settled.
 * `drafts` holds what was not taken (all of them, for a reader that never takes).
 */
export class DraftList {
  readonly drafts: { draft: EventDraft; where: string }[] = [];
  /** 0-based index of the open turn; -1 before the first. */
  turn = -1;
  /** How many turn events (its prompt first, its `turn_start` not counted) the open turn has had. */
  turnEvents = 0;
  private turnStartPosition = -1;
  private turnHasResponse = false;
  /** Drafts handed out by `takeSettled` so far. */
  private taken = 0;

  /** How many drafts were added in all, those taken included. */
  get added(): number {
    return this.taken + this.drafts.length;
  }

  /** Opens a turn. */
  openTurn(ts: string, where: string): void {
    this.turn += 1;
    this.turnEvents = 0;
    this.turnStartPosition = this.drafts.length;
    this.turnHasResponse = false;
    this.drafts.push({ draft: { type: "turn_start", ts }, where });
  }

  /** Adds a turn event, opening a turn first when none is open. */
  add(draft: EventDraft, where: string): void {
    if (this.turn < 0) this.openTurn(draft.ts, where);
    this.turnEvents += 1;
    if (draft.type === "chat_response" || draft.type === "tool_call_request") this.turnHasResponse = true;
    this.drafts.push({ draft, where });
  }

  /** Adds a global entry (config delta, compaction) where the stream is. */
  addGlobal(draft: EventDraft, where: string): void {
    this.drafts.push({ draft, where });
  }

  /**
   * Adds a model change: before the open turn when the assistant has not answered in it yet (the
   * change applies to the whole turn), else where the stream is.
   */
  addModelChange(draft: EventDraft, where: string): void {
    if (this.turn >= 0 && !this.turnHasResponse) {
      this.drafts.splice(this.turnStartPosition, 0, { draft, where });
      this.turnStartPosition += 1;
    } else {
      this.drafts.push({ draft, where });
    }
  }

  /** Removes and returns the drafts that nothing can change any more (see the class). */
  takeSettled(): { draft: EventDraft; where: string }[] {
    const frontier =
      this.turn >= 0 && !this.turnHasResponse ? this.turnStartPosition : this.drafts.length - 1;
    if (frontier <= 0) return [];
    this.turnStartPosition -= frontier;
    this.taken += frontier;
    return this.drafts.splice(0, frontier);
  }
}

/**
 * A tool call's draft from a block of the session (Claude Code's `tool_use`, pi's `toolCall`):
 * arguments that are not an object are kept under `input`.
 */
export function toolCallDraft(ts: string, id: unknown, name: unknown, input: unknown): EventDraft {
  return {
    type: "tool_call_request",
    ts,
    call_id: String(id),
    name: String(name),
    arguments: isRecord(input) ? input : { input },
  };
}

/**
 * The content blocks a reader leaves out: a warning each, and a count in `unknownFields` of the
 * kinds it does not know at all (`known` lists the ones it does).
 */
export class LeftOutBlocks {
  constructor(
    private readonly known: ReadonlySet<string>,
    private readonly warnings: string[],
    private readonly unknownFields: Record<string, number>,
  ) {}

  /** Reports `block` as left out. */
  report(block: Record<string, unknown>, where: string): void {
    this.warnings.push(`${where}: a ${String(block.type)} block was left out`);
    if (!this.known.has(String(block.type))) count(this.unknownFields, `block ${String(block.type)}`);
  }

  /** The text of a string or of text blocks; other blocks are reported. */
  text(content: unknown, where: string): string {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return "";
    const texts: string[] = [];
    for (const block of content) {
      if (isRecord(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
      else if (isRecord(block)) this.report(block, where);
    }
    return texts.join("\n");
  }
}

/**
 * Whether two chains (line → record id) hold the same records up to line `through`: a converter
 * fed the first's records that far may go on under the second's plan (`SessionConverter.rebase`).
 */
export function chainAgrees(
  before: ReadonlyMap<number, string>,
  after: ReadonlyMap<number, string>,
  through: number,
): boolean {
  for (const [line, id] of before) if (line <= through && after.get(line) !== id) return false;
  for (const [line, id] of after) if (line <= through && before.get(line) !== id) return false;
  return true;
}

/** A chain plan (`SessionLineIndexer.chainPlan`) that pass 2 reads the lines or the kept records of. */
function chainLinesPlan(
  conversation: SessionPlan["conversation"],
  included: ReadonlyMap<number, unknown>,
  warnings: readonly string[],
  records: SessionPlan["records"],
  convert: () => SessionConverter,
): Parsed<SessionPlan> {
  return {
    ok: true,
    value: {
      conversation,
      lines: lastLine(included.keys()),
      warnings,
      wants: (line) => included.has(line),
      ...(records === undefined ? {} : { records }),
      convert,
    },
  };
}

/** A reasoning draft with the provider's signature kept in metadata. */
export function reasoningDraft(
  text: string,
  ts: string,
  signature: { key: string; value: string } | undefined,
): EventDraft {
  const draft: EventDraft = { type: "chat_response", ts, reasoning: text };
  if (signature !== undefined) draft.metadata = { [signature.key]: signature.value };
  return draft;
}

/** The token counts an agent recorded for one request, in cxc's terms (see `ProviderUsage`). */
export interface AgentUsageCounts {
  /** Input neither read from nor written to the prompt cache. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** The part of `output` spent on reasoning, where the agent recorded it. */
  readonly reasoning?: number;
  /** The agent's id of the request (a message or response id), when it records one. */
  readonly request?: string;
}

/** A count in an agent's record: a finite number of zero or more, else 0. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Puts the usage an agent recorded for a request on the last event of that request's answer: the
 * last response draft (`chat_response`, `tool_call_request`) still in the list, when no request of
 * a later turn or tool result came after it. Counts of nothing (an export's placeholders, the
 * zeros an agent writes after compacting) are no usage. True when it was put.
 */
export function attachAgentUsage(drafts: DraftList, agent: string, counts: AgentUsageCounts): boolean {
  if (counts.input + counts.output + counts.cacheRead + counts.cacheWrite <= 0) return false;
  const last = drafts.drafts.at(-1)?.draft;
  if (last === undefined || (last.type !== "chat_response" && last.type !== "tool_call_request"))
    return false;
  setMetadata(last, "usage", {
    input_tokens: counts.input,
    output_tokens: counts.output,
    cache_read_input_tokens: counts.cacheRead,
    cache_creation_input_tokens: counts.cacheWrite,
    ...(counts.reasoning === undefined || counts.reasoning <= 0
      ? {}
      : { reasoning_tokens: counts.reasoning }),
    reported_by: agent,
    ...(counts.request === undefined ? {} : { request: counts.request }),
  });
  return true;
}

/** Sets `metadata[key]` on a draft. */
export function setMetadata(draft: EventDraft, key: string, value: unknown): void {
  const metadata = isRecord(draft.metadata) ? draft.metadata : {};
  metadata[key] = value;
  draft.metadata = metadata;
}

/**
 * Which agent wrote a session file, from its first non-empty line: pi's files open with their
 * `session` header, Codex's with `session_meta`, Gemini CLI's with a header of `sessionId` and
 * `projectHash` (no `type`), Claude Code's records carry a `sessionId` (or, in old files, a
 * `leafUuid` title record). Undefined when the line is none of these (or not JSON).
 */
export function detectAgentSession(firstLine: string): AgentFormat | undefined {
  let value: unknown;
  try {
    value = JSON.parse(firstLine);
  } catch {
    return undefined;
  }
  // Gemini CLI's header: the session's id and its project's hash, no type.
  if (isRecord(value) && typeof value.sessionId === "string" && typeof value.projectHash === "string") {
    return "gemini";
  }
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  if (value.type === "session_meta" && isRecord(value.payload)) return "codex";
  if (value.type === "session" && typeof value.id === "string" && typeof value.cwd === "string") return "pi";
  if (typeof value.sessionId === "string" || typeof value.leafUuid === "string") return "claude-code";
  return undefined;
}

/** Claude Code's folder name for a working directory: every non-alphanumeric character as `-`. */
export function claudeCodeProjectFolder(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

/** pi's folder name for a working directory: `--<cwd without its leading slash, / \ : as ->--`. */
export function piSessionFolder(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** pi's file name for a session: `<timestamp with : and . as ->_<session id>.jsonl`. */
export function piSessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
