/**
 * Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`, and the
 * single JSON document older versions wrote) → cxc events. Pure. See docs/import-export.md.
 *
 * The file is an append-only log of records, as Gemini CLI's own loader reads it:
 *
 * - a header `{sessionId, projectHash, startTime, lastUpdated, kind}` (written again on resume);
 * - message records (`id`, `type` user | gemini | info | error | warning, `content`, and for
 *   `gemini` `thoughts`, `toolCalls` with their results, `tokens`, `model`): a record whose id was
 *   seen replaces the earlier one (Gemini rewrites a reply once its tool calls finished);
 * - `{"$set": {…}}` metadata updates; `$set.messages` replaces the whole message list (Gemini
 *   writes it on resume, and when it compresses its history);
 * - `{"$rewindTo": id}`: the user rewound to before that message; it and what followed are gone.
 *
 * The conversation is every message that was ever in the list, in the order it first appeared,
 * each in its last version written as a record of its own (a `$set.messages` copy may carry
 * content Gemini truncated); what a rewind removed is an abandoned branch, left out and counted.
 * Gemini's own compression is a `$set.messages` that drops messages and brings in a new user
 * message (its `<state_snapshot>` summary) and Gemini's acknowledgement, then the kept tail of
 * the history under new ids: it becomes an overlay over the turns before the first kept prompt,
 * whose summary is the snapshot, and the tail's copies are recognised as the messages they copy.
 *
 * A user message opening with `<session_context>` (Gemini's account of the machine and folder) or
 * `<hook_context>` is not the user's and is skipped; so are slash commands and the separate
 * records of function responses (the results ride with their calls). A `gemini` message gives
 * its thoughts (reasoning), its text, and its tool calls with their results; its `tokens` become
 * the usage of its last response.
 *
 * The reader parses the file once (`GeminiSessionReader`, pass 1) and keeps the last version of
 * each message; its plan converts them without reading the file again, handing the events out as
 * they settle (`SessionConverter.convertHeld`), so the conversation is never held whole.
 */
import type { ConversationEvent } from "../conversation/events.js";
import { toStoredUsage } from "../conversation/fold-stream.js";
import {
  agentCompactionDraft,
  type AgentImport,
  type AgentImportSummary,
  agentTimestamp,
  count,
  DraftList,
  type EventDraft,
  EventFinisher,
  importSessionText,
  modelDelta,
  sessionConversation,
  type SessionEnd,
  SessionLineIndexer,
  type SessionConverter,
  type SessionPlan,
  setMetadata,
  titleFromPrompt,
} from "./agent-session.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;
const OK: Parsed<void> = { ok: true, value: undefined };

/** The reply Gemini CLI's compression puts after its summary. */
export const GEMINI_COMPRESSION_ACK = "Got it. Thanks for the additional context!";

/** User text Gemini CLI writes on its own account, or that it never sends (commands). */
const CONTEXT_PREFIX = /^\s*<(session_context|hook_context)>/;
const COMMAND_PREFIX = /^\s*[/?]/;

/** Message types that are Gemini CLI's notices to the user, never sent to the model. */
const NOTICES = new Set(["info", "error", "warning"]);

/** A message as pass 1 keeps it: its last version, and whether that came as a record of its own. */
interface Message {
  record: Json;
  line: number;
  standalone: boolean;
  /** The record's `timestamp`, normalized (`agentTimestamp`) when pass 1 checked it. */
  ts: string;
}

/** Gemini's own compression, as pass 1 found it. */
interface Compression {
  /** How many messages were known when it happened: it goes after them. */
  readonly position: number;
  readonly summary: string;
  /** The first message it kept (the prompt its kept tail starts with); none when it kept none. */
  readonly firstKept: string | undefined;
  readonly ts: string;
  readonly where: string;
  readonly id: string;
}

/** The text of a message's `content` (a string, or parts whose `text` is joined). */
function textOf(content: unknown, options: { thoughts?: boolean } = {}): string {
  if (typeof content === "string") return options.thoughts ? "" : content;
  if (!Array.isArray(content))
    return isRecord(content) && typeof content.text === "string" ? content.text : "";
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    else if (
      isRecord(part) &&
      typeof part.text === "string" &&
      (part.thought === true) === (options.thoughts ?? false)
    ) {
      texts.push(part.text);
    }
  }
  return texts.join(options.thoughts ? "\n\n" : "");
}

/** The parts of a content value (a lone part or string made a list). */
function partsOf(content: unknown): unknown[] {
  if (Array.isArray(content)) return content;
  return content === undefined || content === null ? [] : [content];
}

/** What a user message is, for the import. */
function userKind(record: Json): "prompt" | "context" | "command" | "function response" | "empty" {
  const parts = partsOf(record.content);
  if (parts.length > 0 && parts.every((part) => isRecord(part) && isRecord(part.functionResponse))) {
    return "function response";
  }
  const text = textOf(record.content);
  if (CONTEXT_PREFIX.test(text)) return "context";
  if (text.trim() === "")
    return parts.some((part) => isRecord(part) && !("text" in part)) ? "prompt" : "empty";
  if (COMMAND_PREFIX.test(text)) return "command";
  return "prompt";
}

/** Whether two parsed JSON values are the same, their keys in the same order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameJson(item, b[index]))
    );
  }
  const keys = Object.keys(a);
  const other = Object.keys(b);
  return (
    keys.length === other.length &&
    keys.every(
      (key, index) =>
        key === other[index] &&
        sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

/** A short, stable key of a text, to recognise a copy of a prompt without keeping the prompt. */
function textKey(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${text.length}:${hash.toString(36)}`;
}

/**
 * Pass 1 over one Gemini CLI session: every line parsed once, the log replayed as Gemini replays
 * it (see the module comment), the last version of each message kept.
 */
export class GeminiSessionReader extends SessionLineIndexer {
  private header: Json | undefined;
  private title: string | undefined;
  private readonly messages = new Map<string, Message>();
  /** Ids in the list Gemini holds now, in order (original ids: copies are resolved). */
  private live: string[] = [];
  private readonly aliases = new Map<string, string>();
  private readonly abandoned = new Set<string>();
  private readonly compressions: Compression[] = [];
  /** The summaries and acknowledgements of Gemini's compressions: in its list, not turns of the work. */
  private readonly synthetic = new Set<string>();
  /** Function responses written as user records of their own, by call id (a call's fallback). */
  private readonly responses = new Map<string, Json>();
  /** The function responses of the kept replies' tool calls, by call id. */
  private readonly callResults = new Map<string, Json>();
  private readonly skipped: Record<string, number> = {};
  private readonly unknown: Record<string, number> = {};
  private lastTimestamp = "1970-01-01T00:00:00.000Z";

  constructor(label: string) {
    // It keeps the messages it replays itself: no record is kept for a second pass.
    super(label, "gemini", "Gemini CLI", false);
  }

  /** A line as a record: a JSON object (Gemini CLI's records need no `type`). */
  protected override parseLine(text: string, where: string): Parsed<Json> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = (error as Error).message.replace(/\s*in JSON at position \d+.*$/s, "");
      return interopError(`${where}: not valid JSON (${reason}); not a Gemini CLI session line`);
    }
    if (!isRecord(value)) return interopError(`${where}: a Gemini CLI session line is a JSON object`);
    return { ok: true, value };
  }

  /**
   * A session in the single JSON document older Gemini CLI versions wrote (`session-….json`):
   * its metadata, then its messages, as if each were a line.
   */
  addDocument(document: unknown): Parsed<void> {
    if (!isRecord(document) || typeof document.sessionId !== "string") {
      return interopError(`${this.label}: not a Gemini CLI session: the document has no \`sessionId\``);
    }
    const { messages, ...metadata } = document;
    const header = this.addRecord({ projectHash: "", ...metadata }, `${this.label}`);
    if (!header.ok) return header;
    if (messages !== undefined && !Array.isArray(messages)) {
      return interopError(`${this.label}: \`messages\` must be a list`);
    }
    for (const [index, message] of (messages ?? []).entries()) {
      this.line = index + 1;
      if (!isRecord(message)) return interopError(`${this.label}: message ${index + 1} is not an object`);
      const added = this.addRecord(message, `${this.label}: message ${index + 1}`);
      if (!added.ok) return added;
    }
    return OK;
  }

  protected addRecord(record: Json, where: string): Parsed<void> {
    if (typeof record.$rewindTo === "string") return this.rewind(record.$rewindTo);
    if (typeof record.id === "string") return this.message(record, where, true);
    if (isRecord(record.$set)) return this.set(record.$set, where);
    if (typeof record.sessionId === "string" && typeof record.projectHash === "string") {
      if (this.header === undefined) this.header = record;
      if (Array.isArray(record.messages)) return this.set({ messages: record.messages }, where);
      count(this.skipped, "session header");
      return OK;
    }
    if (this.header === undefined) {
      return interopError(
        `${where}: not a Gemini CLI session: the first record must be its header (\`sessionId\`, \`projectHash\`)`,
      );
    }
    count(this.unknown, typeof record.type === "string" ? record.type : "record without an id");
    return OK;
  }

  private requireHeader(where: string): Parsed<void> {
    if (this.header !== undefined) return OK;
    return interopError(
      `${where}: not a Gemini CLI session: the first record must be its header (\`sessionId\`, \`projectHash\`)`,
    );
  }

  private message(record: Json, where: string, standalone: boolean): Parsed<void> {
    const header = this.requireHeader(where);
    if (!header.ok) return header;
    if (typeof record.type !== "string") return interopError(`${where}: a message needs a string \`type\``);
    const ts = agentTimestamp(record.timestamp);
    if (ts === undefined) return interopError(`${where}: a ${record.type} message needs a \`timestamp\``);
    this.lastTimestamp = ts;
    const id = this.aliases.get(record.id as string) ?? (record.id as string);
    const known = this.messages.get(id);
    if (known === undefined) {
      this.messages.set(id, { record, line: this.line, standalone, ts });
      this.abandoned.delete(id);
      this.live.push(id);
      if (record.type === "gemini") this.keepCalls(record);
    } else if (standalone || !known.standalone) {
      known.record = record;
      known.line = this.line;
      known.standalone = standalone;
      known.ts = ts;
      if (this.abandoned.delete(id)) this.live.push(id);
      if (record.type === "gemini") this.keepCalls(record);
    }
    if (standalone && record.type === "user") {
      for (const part of partsOf(record.content)) {
        if (!isRecord(part) || !isRecord(part.functionResponse)) continue;
        let response = part.functionResponse;
        if (typeof response.id !== "string") continue;
        // Gemini CLI writes a call's result twice, with the call and in this record: when the two
        // are the same, the call's copy stands for both and this one is not kept.
        const same = this.callResults.get(response.id);
        if (same !== undefined && sameJson(same, response)) {
          part.functionResponse = same;
          response = same;
        }
        this.responses.set(response.id as string, response);
      }
    }
    return OK;
  }

  /**
   * What a kept reply's tool calls hold that the reader needs: each call's results, by call id
   * (the function response written again as a user record then shares them); its `resultDisplay`
   * (the output once more, for Gemini's own display) is never read, and not kept.
   */
  private keepCalls(record: Json): void {
    if (!Array.isArray(record.toolCalls)) return;
    for (const call of record.toolCalls) {
      if (!isRecord(call)) continue;
      if (call.resultDisplay !== undefined) call.resultDisplay = undefined;
      for (const part of partsOf(call.result)) {
        const response = isRecord(part) ? part.functionResponse : undefined;
        if (isRecord(response) && typeof response.id === "string")
          this.callResults.set(response.id, response);
      }
    }
  }

  private rewind(target: string): Parsed<void> {
    const id = this.aliases.get(target) ?? target;
    const index = this.live.indexOf(id);
    const removed = index === -1 ? this.live : this.live.slice(index);
    for (const gone of removed) this.abandoned.add(gone);
    this.live = index === -1 ? [] : this.live.slice(0, index);
    return OK;
  }

  private set(update: Json, where: string): Parsed<void> {
    if (typeof update.summary === "string" && update.summary.trim() !== "")
      this.title = update.summary.trim();
    if (!Array.isArray(update.messages)) return OK;
    const header = this.requireHeader(where);
    if (!header.ok) return header;
    const list: { id: string; record: Json; known: boolean }[] = [];
    for (const [index, entry] of update.messages.entries()) {
      if (!isRecord(entry) || typeof entry.id !== "string" || typeof entry.type !== "string") {
        return interopError(
          `${where}: message ${index + 1} of \`$set.messages\` needs a string \`id\` and \`type\``,
        );
      }
      const id = this.aliases.get(entry.id) ?? entry.id;
      const known = this.synthetic.has(id) || (this.messages.has(id) && !this.abandoned.has(id));
      list.push({ id, record: entry, known });
    }
    const listed = new Set(list.map((entry) => entry.id));
    const dropped = this.live.filter((id) => !listed.has(id) && this.isHistory(id));
    const summaryAt = list.findIndex(
      (entry) => !entry.known && entry.record.type === "user" && userKind(entry.record) === "prompt",
    );
    if (dropped.length > 0 && summaryAt >= 0) return this.compression(list, summaryAt, where);
    for (const entry of list) {
      if (this.synthetic.has(entry.id)) continue;
      const added = this.message(entry.record, where, false);
      if (!added.ok) return added;
    }
    this.live = list.map((entry) => entry.id).filter((id) => !this.synthetic.has(id));
    return OK;
  }

  /** Whether a message is part of what Gemini sends (not its context, a notice or a command). */
  private isHistory(id: string): boolean {
    const record = this.messages.get(id)?.record;
    if (record === undefined) return false;
    if (record.type === "gemini") return true;
    return record.type === "user" && ["prompt", "function response"].includes(userKind(record));
  }

  /**
   * Gemini's compression: `list[summaryAt]` is its summary, the next its acknowledgement, and the
   * rest the kept tail, under new ids: each is matched with the message it copies (from the live
   * message whose prompt opens the tail, in order), so later records of the copy update the
   * original.
   */
  private compression(
    list: { id: string; record: Json; known: boolean }[],
    summaryAt: number,
    where: string,
  ): Parsed<void> {
    const position = this.messages.size;
    const summary = list[summaryAt]!;
    const ack = list[summaryAt + 1];
    const tailStart =
      ack !== undefined && !ack.known && ack.record.type === "gemini" ? summaryAt + 2 : summaryAt + 1;
    for (const entry of list.slice(summaryAt, tailStart)) this.synthetic.add(entry.id);
    const tail = list.slice(tailStart);
    const history = this.live.filter((id) => this.isHistory(id));
    const firstPrompt = tail.find(
      (entry) => entry.record.type === "user" && userKind(entry.record) === "prompt",
    );
    let firstKept: string | undefined;
    if (firstPrompt !== undefined) {
      const key = textKey(textOf(firstPrompt.record.content));
      for (let index = history.length - 1; index >= 0; index--) {
        const record = this.messages.get(history[index]!)!.record;
        if (record.type === "user" && textKey(textOf(record.content)) === key) {
          firstKept = history[index];
          break;
        }
      }
    }
    const newLive: string[] = this.live.filter(
      (id) => !this.isHistory(id) && list.some((entry) => entry.id === id),
    );
    let cursor = firstKept === undefined ? history.length : history.indexOf(firstKept);
    for (const entry of tail.slice(firstPrompt === undefined ? 0 : tail.indexOf(firstPrompt))) {
      if (entry.known) {
        newLive.push(entry.id);
        continue;
      }
      const original = history[cursor];
      const copies = original !== undefined && this.messages.get(original)!.record.type === entry.record.type;
      if (copies) {
        this.aliases.set(entry.record.id as string, original);
        newLive.push(original);
        cursor += 1;
      } else {
        // Not a copy of a message known here: a message of its own.
        const added = this.message(entry.record, where, false);
        if (!added.ok) return added;
        newLive.push(entry.id);
      }
    }
    const ts = agentTimestamp(summary.record.timestamp) ?? this.lastTimestamp;
    this.compressions.push({
      position,
      summary: textOf(summary.record.content),
      firstKept,
      ts,
      where,
      id: summary.id,
    });
    this.live = newLive;
    return OK;
  }

  finish(): Parsed<SessionPlan> {
    const header = this.header;
    if (header === undefined)
      return interopError(`${this.label}: not a Gemini CLI session: the file is empty`);
    const sessionId = header.sessionId as string;
    const key = `gemini:${sessionId}`;
    const createdAt =
      agentTimestamp(header.startTime) ??
      agentTimestamp([...this.messages.values()][0]?.record.timestamp) ??
      "1970-01-01T00:00:00.000Z";
    const origin: Json = { agent: "gemini", session_id: sessionId };
    const cwd = this.workspace();
    if (cwd !== undefined) origin.cwd = cwd;
    if (header.kind === "subagent") origin.kind = "subagent";
    const empty = ![...this.messages.entries()].some(
      ([id, message]) =>
        !this.abandoned.has(id) && message.record.type === "user" && userKind(message.record) === "prompt",
    );
    return {
      ok: true,
      value: {
        conversation: sessionConversation(key, createdAt, origin),
        lines: 0,
        warnings: this.warnings,
        ...(empty ? { empty: true } : {}),
        wants: () => false,
        convert: () => this.converter(key),
      },
    };
  }

  /**
   * Pass 2: converts the messages pass 1 kept (no line is read again), handing out the events as
   * they settle (`convertHeld`); `finish` hands out the rest (all of them, when `convertHeld` was
   * not called).
   */
  private converter(key: string): SessionConverter {
    let end: Parsed<SessionEnd> | undefined;
    return {
      addLine: () => ({ ok: true, value: [] }),
      convertHeld: (take) => {
        end ??= this.convert(key, take);
        return end.ok ? OK : end;
      },
      finish: () => {
        if (end !== undefined) return end;
        const events: ConversationEvent[] = [];
        const whole = this.convert(key, (batch) => {
          for (const event of batch) events.push(event);
        });
        if (!whole.ok) return whole;
        for (const event of whole.value.events) events.push(event);
        return { ok: true, value: { ...whole.value, events } };
      },
    };
  }

  /** The project folder Gemini's context message names, if any. */
  private workspace(): string | undefined {
    for (const message of this.messages.values()) {
      if (message.record.type !== "user") continue;
      const text = textOf(message.record.content);
      if (!CONTEXT_PREFIX.test(text)) continue;
      const match =
        /Workspace Directories:\*\*\s*\n\s*-\s*(\S[^\n]*)/.exec(text) ??
        /working in the directory:?\s*(\S[^\n]*)/i.exec(text);
      if (match) return match[1]!.trim();
    }
    return undefined;
  }

  /**
   * Pass 2: the kept messages, in order, as events, with Gemini's compressions as overlays; each
   * batch of events nothing later changes goes to `take` between messages, the rest is the end's.
   */
  private convert(key: string, take: (events: readonly ConversationEvent[]) => void): Parsed<SessionEnd> {
    const drafts = new DraftList();
    const finisher = new EventFinisher(key);
    const handOut = (): Parsed<void> => {
      const settled = drafts.takeSettled();
      if (settled.length === 0) return OK;
      const events = finisher.finish(settled);
      if (!events.ok) return events;
      take(events.value);
      return OK;
    };
    const turnOf = new Map<string, number>();
    const skipped = { ...this.skipped };
    const unknown = { ...this.unknown };
    const unknownFields: Record<string, number> = {};
    let model: string | undefined;
    let firstPrompt: string | undefined;
    let compactions = 0;
    let abandonedRecords = 0;
    const compressions = [...this.compressions];
    let position = 0;
    const placeCompressions = (upTo: number) => {
      while (compressions.length > 0 && compressions[0]!.position <= upTo) {
        const compression = compressions.shift()!;
        const kept = compression.firstKept === undefined ? undefined : turnOf.get(compression.firstKept);
        const toTurn = kept === undefined ? drafts.turn : kept - 1;
        if (toTurn < 0 || compression.summary.trim() === "") {
          count(skipped, "compression");
          this.warnings.push(
            `${compression.where}: Gemini CLI's own compression ${toTurn < 0 ? "before the first turn" : "without a summary"} is not made an overlay (the whole history before it is kept)`,
          );
          continue;
        }
        compactions += 1;
        drafts.addGlobal(
          agentCompactionDraft({
            ts: compression.ts,
            toTurn,
            summary: compression.summary,
            source: "user",
            note: "Gemini CLI's own compression",
            origin: { agent: "gemini", record: compression.id },
          }),
          compression.where,
        );
      }
    };
    for (const [id, message] of this.messages) {
      // Settled drafts are finished a few hundred at a time (when is no matter: what is settled stays so).
      if (drafts.drafts.length >= 256) {
        const handed = handOut();
        if (!handed.ok) return handed;
      }
      placeCompressions(position);
      position += 1;
      const where = `${this.label}:${message.line}`;
      if (this.abandoned.has(id)) {
        abandonedRecords += 1;
        continue;
      }
      const record = message.record;
      const ts = message.ts;
      if (record.type === "user") {
        const kind = userKind(record);
        if (kind !== "prompt") {
          count(skipped, kind === "context" ? "session context" : kind);
          continue;
        }
        const text = textOf(record.content);
        for (const part of partsOf(record.content)) {
          if (isRecord(part) && typeof part.text !== "string" && !isRecord(part.functionResponse)) {
            this.warnings.push(`${where}: a ${Object.keys(part)[0] ?? "non-text"} part was left out`);
          }
        }
        drafts.openTurn(ts, where);
        turnOf.set(id, drafts.turn);
        firstPrompt ??= text;
        drafts.add({ type: "chat_request", ts, content: text }, where);
      } else if (record.type === "gemini") {
        if (typeof record.model === "string" && record.model !== "") {
          const modelId = `google/${record.model}`;
          if (modelId !== model) {
            model = modelId;
            drafts.addModelChange(modelDelta(modelId, ts), where);
          }
        }
        this.reply(record, ts, where, drafts);
      } else if (NOTICES.has(record.type as string)) {
        count(skipped, `${record.type} notice`);
      } else {
        count(unknownFields, `message ${String(record.type)}`);
      }
    }
    placeCompressions(Number.POSITIVE_INFINITY);
    if (drafts.turn < 0) {
      return interopError(`${this.label}: a Gemini CLI session without a single prompt; nothing to import`);
    }
    const summary: AgentImportSummary = {
      agent: "gemini",
      lines: this.line,
      turns: drafts.turn + 1,
      compactions,
      skipped,
      unknown,
      unknownFields,
      sideChainRecords: 0,
      abandonedBranches: this.rewinds(),
      abandonedRecords,
    };
    const title = this.title ?? titleFromPrompt(firstPrompt);
    return finisher.end(drafts.drafts.splice(0), title, summary, this.warnings);
  }

  /** How many runs of consecutive messages a rewind removed. */
  private rewinds(): number {
    let runs = 0;
    let inRun = false;
    for (const id of this.messages.keys()) {
      const gone = this.abandoned.has(id);
      if (gone && !inRun) runs += 1;
      inRun = gone;
    }
    return runs;
  }

  /** A `gemini` message: thoughts, text and tool calls with their results, and its usage. */
  private reply(record: Json, ts: string, where: string, drafts: DraftList): void {
    const responses: EventDraft[] = [];
    const thoughts = Array.isArray(record.thoughts)
      ? record.thoughts.flatMap((thought) => {
          if (!isRecord(thought)) return [];
          const subject = typeof thought.subject === "string" ? thought.subject.trim() : "";
          const description = typeof thought.description === "string" ? thought.description.trim() : "";
          const text =
            subject === ""
              ? description
              : description === ""
                ? `**${subject}**`
                : `**${subject}** ${description}`;
          return text === "" ? [] : [text];
        })
      : [];
    const reasoning =
      thoughts.length > 0 ? thoughts.join("\n\n") : textOf(record.content, { thoughts: true });
    if (reasoning !== "") responses.push({ type: "chat_response", ts, reasoning });
    const text = textOf(record.content);
    if (text !== "") responses.push({ type: "chat_response", ts, message: text });
    for (const response of responses) drafts.add(response, where);
    const calls = Array.isArray(record.toolCalls) ? record.toolCalls.filter(isRecord) : [];
    const fromContent =
      calls.length > 0
        ? []
        : partsOf(record.content).flatMap((part) =>
            isRecord(part) && isRecord(part.functionCall) ? [part.functionCall] : [],
          );
    const results: EventDraft[] = [];
    for (const call of [...calls, ...fromContent]) {
      const name = typeof call.name === "string" ? call.name : "";
      const callId = typeof call.id === "string" ? call.id : `${name}_${drafts.added}`;
      const callTs = agentTimestamp(call.timestamp) ?? ts;
      drafts.add(
        {
          type: "tool_call_request",
          ts: callTs,
          call_id: callId,
          name,
          arguments: isRecord(call.args) ? call.args : {},
        },
        where,
      );
      const result = this.resultOf(call, callId);
      if (result !== undefined) {
        results.push({ type: "tool_call_response", ts: callTs, call_id: callId, ...result });
      }
    }
    for (const result of results) drafts.add(result, where);
    const usage = usageOf(record.tokens);
    const last = responses.at(-1);
    // Gemini CLI's own count: its system prompt and tools are in it (compaction/core/advisor/next-request.ts).
    if (usage !== undefined && last !== undefined)
      setMetadata(last, "usage", { ...usage, reported_by: "gemini" });
  }

  /** A call's result: its `result` parts, else a function response recorded on its own. */
  private resultOf(call: Json, callId: string): { content: string; is_error: boolean } | undefined {
    const failed = call.status === "error" || call.status === "cancelled";
    if (typeof call.result === "string") return { content: call.result, is_error: failed };
    const responses = partsOf(call.result).flatMap((part) =>
      isRecord(part) && isRecord(part.functionResponse) ? [part.functionResponse] : [],
    );
    if (responses.length === 0) {
      const own = this.responses.get(callId);
      if (own !== undefined) responses.push(own);
    }
    if (responses.length === 0) return undefined;
    let error = failed;
    const texts = responses.map((response) => {
      const value = response.response;
      if (isRecord(value) && typeof value.output === "string") return value.output;
      if (isRecord(value) && typeof value.error === "string") {
        error = true;
        return value.error;
      }
      if (isRecord(value) && typeof value.content === "string") return value.content;
      return typeof value === "string" ? value : JSON.stringify(value ?? "");
    });
    return { content: texts.join("\n"), is_error: error };
  }
}

/** Gemini CLI's `tokens` (input counts the cached tokens; thoughts apart) as stored usage. */
function usageOf(tokens: unknown): Record<string, number> | undefined {
  if (!isRecord(tokens)) return undefined;
  const number = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
  if (typeof tokens.input !== "number" || typeof tokens.output !== "number") return undefined;
  const cached = number(tokens.cached);
  return toStoredUsage({
    inputTokens: Math.max(0, number(tokens.input) - cached),
    outputTokens: number(tokens.output) + number(tokens.thoughts),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  });
}

/** Converts a whole session text (tests, small files; the shell streams large ones). */
export function importGeminiSession(text: string, label: string): Parsed<AgentImport> {
  return importSessionText(text, new GeminiSessionReader(label));
}
