/**
 * Claude Code session files (`~/.claude/projects/<cwd slug>/<session id>.jsonl`) → cxc events.
 * Pure: the shell feeds the file's lines to a `ClaudeCodeSessionReader` (pass 1, an index of the
 * records), then the chain's lines to the converter its plan makes (pass 2; see agent-session.ts);
 * writing a session back is claude-code-export.ts. The mapping is documented in docs/import-export.md; in short:
 *
 * - The file is a tree of records (`uuid`/`parentUuid`) among bookkeeping records that have no
 *   place in it (queue operations, request shapes and blobs, costs, modes). The conversation is
 *   the chain from the leaf (`last-prompt.leafUuid`, or the last record) back to the root, across
 *   Claude Code's compaction boundaries (`logicalParentUuid`). Parallel tool calls branch the
 *   chain (each result hangs off its own `tool_use` record), so the other blocks of an assistant
 *   message on the chain (same `message.id`) and the results of its calls (same `tool_use_id`)
 *   are taken in too. Records off the chain are abandoned branches; side chains are subagents.
 * - A prompt opens a turn; assistant blocks become reasoning (signature in metadata), messages and
 *   tool calls; tool results become tool responses; the model becomes a config delta.
 * - Attachments carrying content to the model: a file the user mentioned (right after the prompt)
 *   becomes a `chat_request` of the turn; the agent's own context (dates, token reminders, files it
 *   re-attached after compacting) rides in metadata of the event it followed
 *   (`claude_code_context`) or of the prompt it came before (`claude_code_context_before`), so an
 *   export gives it back to Claude Code where it was; attachments that carried nothing to the
 *   model are bookkeeping.
 * - A compaction (a `compact_boundary` record and the `isCompactSummary` prompt after it) becomes
 *   a `compaction` overlay with the summary as Claude Code's model saw it, over the turns before
 *   the first message Claude Code kept verbatim (a turn it kept in part is kept whole); with no
 *   turn before it, the summary is the session's first request. The `/compact` echo is left out.
 */
import type { ConversationEvent } from "../conversation/events.js";
import {
  agentCompactionDraft,
  type AgentImport,
  type AgentImportSummary,
  addedCounts,
  attachAgentUsage,
  chainAgrees,
  count,
  DraftList,
  type EarlyStart,
  type EventDraft,
  EventFinisher,
  importSessionText,
  LeftOutBlocks,
  modelDelta,
  parseRecordLine,
  reasoningDraft,
  sessionConversation,
  type SessionConverter,
  type SessionEnd,
  SessionLineIndexer,
  type SessionPlan,
  setMetadata,
  summaryToCome,
  titleFromPrompt,
  tokenCount,
  toolCallDraft,
} from "./agent-session.js";
import { CXC_PINNED_KEY } from "./agents.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import { ANTHROPIC_REDACTED_KEY, ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import type { Parsed } from "../parsed.js";

export { CXC_PINNED_KEY };

/** Metadata key: Claude Code's context attachments that followed this event (records without chain fields). */
export const CLAUDE_CODE_CONTEXT_KEY = "claude_code_context";
/** Metadata key: context attachments that came before this prompt (after a compaction, say). */
export const CLAUDE_CODE_LEADING_CONTEXT_KEY = "claude_code_context_before";
/** Metadata key: the attachment record a `chat_request` was made from (a file the user mentioned). */
export const CLAUDE_CODE_ATTACHMENT_KEY = "claude_code_attachment";
/** Metadata key marking a `chat_request` Claude Code sent as a meta message (`isMeta`). */
export const CLAUDE_CODE_META_KEY = "claude_code_meta";
/**
 * Metadata key marking a `chat_request` that is one of Claude Code's summaries with no turns
 * before it to cover (a session that starts compacted, as an export writes it).
 */
export const CLAUDE_CODE_SUMMARY_KEY = "claude_code_compact_summary";
/** The `author` of requests made from files the user mentioned. */
export const CLAUDE_CODE_ATTACHMENT_AUTHOR = "Claude Code (attached file)";
/**
 * The record field cxc's export writes on records holding pinned messages: the indexes of the
 * pinned blocks of `message.content` (0 for a text prompt). Claude Code ignores it and keeps it
 * in the file; the restore after Claude Code compacts reads it back (`CXC_PINNED_KEY`).
 */
export const CLAUDE_CODE_PINNED_FIELD = "cxcPinned";

/** Record types that carry nothing of the conversation; skipped and counted. */
const BOOKKEEPING = new Set([
  "queue-operation",
  "last-prompt",
  "api-request",
  "api-request-shape",
  "api-request-blob",
  "cost-state",
  "tools-used",
  "mode",
  "atis-latch",
  "file-history-snapshot",
  "progress",
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "tag",
  "pr-link",
]);

/**
 * The content blocks of the Messages API that Claude Code writes: a block of another kind is one a
 * newer Claude Code brought (counted as an unknown field; agent-versions.ts). Those the converter
 * does not map (images, documents, server tools) are left out with a warning either way.
 */
const KNOWN_BLOCKS = new Set([
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "search_result",
]);

/** Attachment types that bring a file the user named into the prompt. */
const USER_FILE_ATTACHMENTS = new Set(["file", "directory", "selected_lines_in_ide"]);

/** Fields of a chain record that belong to the chain, not to its content. */
const CHAIN_FIELDS = new Set([
  "uuid",
  "parentUuid",
  "logicalParentUuid",
  "sessionId",
  "cwd",
  "timestamp",
  "isSidechain",
  "userType",
  "entrypoint",
  "version",
  "gitBranch",
  "slug",
]);

/** Claude Code's echo of a slash command it ran (not a request to the model). */
const COMMAND_ECHO =
  /^\s*<(local-command-caveat|command-name|command-message|local-command-stdout|local-command-stderr)>/;

const CHAIN_TYPES = new Set(["user", "assistant", "system", "attachment"]);

/** A chain record as the mapper reads it in pass 2. */
interface ChainRecord {
  readonly line: number;
  readonly uuid: string;
  readonly type: string;
  readonly timestamp: string;
  /** The record (large payloads of bookkeeping attachments dropped). */
  readonly raw: Record<string, unknown>;
}

/** What pass 1 keeps of a chain record: enough to find the chain, none of its content. */
interface IndexedRecord {
  readonly line: number;
  readonly uuid: string;
  readonly parentUuid: string | null;
  /** `parentUuid`, or across a compaction boundary its `logicalParentUuid`. */
  readonly parent: string | null;
  /**
   * A compaction boundary's `compactMetadata.preservedSegment.tailUuid`: the last record before
   * it, where its `logicalParentUuid` names a record Claude Code never wrote (the pinned Claude
   * Code links a `/compact` in a resumed session to its `SessionStart:resume` hook's attachment,
   * which it keeps only in memory).
   */
  readonly tail?: string;
  readonly timestamp: string;
  /** An assistant record's `message.id` (the blocks of one message share it). */
  readonly messageId?: string;
  /** An assistant record's `tool_use` block ids. */
  readonly toolUses?: readonly string[];
  /** A user record's `tool_result` block `tool_use_id`s. */
  readonly toolResults?: readonly string[];
}

type Json = Record<string, unknown>;

/**
 * Pass 1 over one Claude Code session file (see agent-session.ts for the protocol): validates
 * every line and keeps an index entry per chain record. `addLine` returns an error naming
 * `label:line` for a line that is not a Claude Code record; `finish` finds the active chain.
 */
export class ClaudeCodeSessionReader extends SessionLineIndexer {
  private readonly indexed: IndexedRecord[] = [];
  private readonly skipped: Record<string, number> = {};
  private readonly unknown: Record<string, number> = {};
  private sideChainRecords = 0;
  private hasMessages = false;
  private leafUuid: string | undefined;
  private title: string | undefined;
  private fallbackTitle: string | undefined;
  private sessionId: string | undefined;
  private cwd: string | undefined;
  private version: string | undefined;
  private firstType: string | undefined;

  /** `keep`: keep the chain's records for pass 2 (`SessionPlan.records`); else it reads them again. */
  constructor(label: string, keep = true) {
    super(label, "claude-code", "the agent", keep);
  }

  protected addRecord(record: Record<string, unknown>, where: string): Parsed<void> {
    const type = record.type as string;
    this.firstType ??= type;
    if (this.line === 1 && type === "session" && "version" in record) {
      return interopError(
        `${where}: this is a pi session (its first line is pi's session header), not Claude Code's`,
      );
    }
    if (CHAIN_TYPES.has(type)) return this.addChainRecord(record, type, where);
    if (type === "last-prompt" && typeof record.leafUuid === "string") this.leafUuid = record.leafUuid;
    if (type === "custom-title" && typeof record.customTitle === "string") this.title = record.customTitle;
    if ((type === "summary" || type === "ai-title") && this.fallbackTitle === undefined) {
      const value = record.summary ?? record.aiTitle ?? record.title;
      if (typeof value === "string") this.fallbackTitle = value;
    }
    if (BOOKKEEPING.has(type)) count(this.skipped, type);
    else count(this.unknown, type);
    return { ok: true, value: undefined };
  }

  private addChainRecord(record: Json, type: string, where: string): Parsed<void> {
    const problem = chainRecordProblem(record, type);
    if (problem !== undefined) return interopError(`${where}: ${problem}`);
    if (record.isSidechain === true) {
      this.sideChainRecords += 1;
      return { ok: true, value: undefined };
    }
    if (typeof record.sessionId === "string") this.sessionId ??= record.sessionId;
    if (typeof record.cwd === "string") this.cwd ??= record.cwd;
    if (typeof record.version === "string") this.version = record.version;
    const parentUuid = (record.parentUuid ?? null) as string | null;
    const logical =
      record.subtype === "compact_boundary" && typeof record.logicalParentUuid === "string"
        ? record.logicalParentUuid
        : null;
    const entry: { -readonly [K in keyof IndexedRecord]: IndexedRecord[K] } = {
      line: this.line,
      uuid: record.uuid as string,
      parentUuid,
      parent: parentUuid ?? logical,
      timestamp: record.timestamp as string,
    };
    if (logical !== null) {
      const tail = ((record.compactMetadata as Json | undefined)?.preservedSegment as Json | undefined)
        ?.tailUuid;
      if (typeof tail === "string") entry.tail = tail;
    }
    const message = record.message;
    if (type === "user" || type === "assistant") this.hasMessages = true;
    if (type === "assistant" && isRecord(message) && typeof message.id === "string") {
      entry.messageId = message.id;
      const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
      const calls = blocks.flatMap((block) =>
        block.type === "tool_use" && typeof block.id === "string" ? [block.id] : [],
      );
      if (calls.length > 0) entry.toolUses = calls;
    }
    if (type === "user" && isRecord(message) && Array.isArray(message.content)) {
      const results = (message.content as Json[]).flatMap((block) =>
        block.type === "tool_result" && typeof block.tool_use_id === "string" ? [block.tool_use_id] : [],
      );
      if (results.length > 0) entry.toolResults = results;
    }
    this.indexed.push(entry);
    if (!this.convertNow(record, entry.uuid)) this.keep(withoutToolUseResult(record));
    return { ok: true, value: undefined };
  }

  /** Finds the conversation's chain; the plan converts its records in pass 2. */
  finish(): Parsed<SessionPlan> {
    if (!this.hasMessages) {
      const first =
        this.firstType === undefined ? "the file is empty" : `line 1 is a '${this.firstType}' record`;
      return interopError(
        `${this.label}: not a Claude Code session: it has no user or assistant records (${first})`,
      );
    }
    const chain = this.activeChain();
    if (!chain.ok) return chain;
    const { included, abandonedRecords, abandonedBranches } = chain.value;
    const sessionId = this.sessionKey();
    const key = `claude-code:${sessionId}`;
    const first = this.indexed.find((record) => included.has(record.line)) ?? this.indexed[0]!;
    const createdAt = first.timestamp;
    const origin: Json = { agent: "claude-code", session_id: sessionId };
    if (this.cwd !== undefined) origin.cwd = this.cwd;
    if (this.version !== undefined) origin.version = this.version;
    const title = this.title ?? this.fallbackTitle;
    const summary = {
      agent: "claude-code" as const,
      lines: this.line,
      compactions: 0,
      skipped: this.skipped,
      unknown: this.unknown,
      unknownFields: {},
      ...(this.version === undefined ? {} : { version: this.version }),
      sideChainRecords: this.sideChainRecords,
      abandonedBranches,
      abandonedRecords,
    };
    const { label, warnings } = this;
    return this.chainPlan(
      sessionConversation(key, createdAt, origin),
      included,
      () =>
        new ClaudeCodeConverter({
          label,
          key,
          included,
          title,
          summary,
          warnings,
          validate: this.validateEvents,
        }),
    );
  }

  /** Converting as read: a converter whose chain is every record read (see `convertAsRead`). */
  protected override earlyConverter(included: ReadonlyMap<number, string>, first: Json): EarlyStart {
    const key = `claude-code:${this.sessionKey()}`;
    const converter = new ClaudeCodeConverter({
      label: this.label,
      key,
      included,
      title: undefined,
      summary: summaryToCome("claude-code"),
      warnings: this.warnings,
      validate: this.validateEvents,
    });
    // The conversation starts with the chain's first record: this one, if every record is on it.
    return { converter, key, createdAt: first.timestamp as string };
  }

  /** The session's id: the records', else the file's name. */
  private sessionKey(): string {
    return this.sessionId ?? this.label.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "");
  }

  /** The lines of the conversation's records (with their uuids), and what was left off the chain. */
  private activeChain(): Parsed<{
    included: Map<number, string>;
    abandonedRecords: number;
    abandonedBranches: number;
  }> {
    const records = this.indexed;
    // Where each uuid's record is in the index (the last written, if one was written twice): what
    // is on the chain is marked by that place in an array of flags, not gathered in sets of uuids.
    const placeOf = new Map<string, number>();
    for (let place = 0; place < records.length; place++) placeOf.set(records[place]!.uuid, place);
    /** Every uuid written once: each record's place is its uuid's. */
    const unique = placeOf.size === records.length;
    const recordOf = (uuid: string): IndexedRecord | undefined => {
      const place = placeOf.get(uuid);
      return place === undefined ? undefined : records[place];
    };
    const included = new Uint8Array(records.length);
    const isIncluded = (place: number): boolean =>
      included[unique ? place : placeOf.get(records[place]!.uuid)!] === 1;
    const include = (record: IndexedRecord): void => {
      included[placeOf.get(record.uuid)!] = 1;
    };
    /** The places of the chain's records, from the leaf. */
    const chain: number[] = [];
    for (let current: IndexedRecord | undefined = this.findLeaf(recordOf); current !== undefined; ) {
      const place = placeOf.get(current.uuid)!;
      if (included[place] === 1) {
        return interopError(`${this.label}:${current.line}: the uuid/parentUuid chain loops back on itself`);
      }
      included[place] = 1;
      chain.push(place);
      const parent = current.parent;
      if (parent === null) break;
      let next = recordOf(parent);
      // A boundary whose logical parent was never written: the record its preserved segment
      // ends with, written before it.
      if (next === undefined && current.tail !== undefined) {
        const tail = recordOf(current.tail);
        if (tail !== undefined && tail.line < current.line) next = tail;
      }
      if (next === undefined) {
        this.warnings.push(
          `${this.label}:${current.line}: its parent ${parent} is not in the file; the history before it is missing`,
        );
      }
      current = next;
    }
    // Parallel tool calls: the rest of each assistant message on the chain, and the results. Only
    // a message or a call with a record off the chain can add one (a session without parallel
    // calls or retried results has none), so only theirs are gathered (all of them when a uuid
    // was written twice).
    const offMessages = new Set<string>();
    const offCalls = new Set<string>();
    for (let place = 0; place < records.length; place++) {
      if (unique && isIncluded(place)) continue;
      const record = records[place]!;
      if (record.messageId !== undefined) offMessages.add(record.messageId);
      for (const call of record.toolResults ?? []) offCalls.add(call);
    }
    const byMessageId = new Map<string, IndexedRecord[]>();
    const resultsByCall = new Map<string, IndexedRecord[]>();
    const append = (map: Map<string, IndexedRecord[]>, key: string, record: IndexedRecord): void => {
      const list = map.get(key);
      if (list === undefined) map.set(key, [record]);
      else list.push(record);
    };
    if (offMessages.size > 0 || offCalls.size > 0) {
      for (const record of records) {
        if (record.messageId !== undefined && offMessages.has(record.messageId))
          append(byMessageId, record.messageId, record);
        for (const call of record.toolResults ?? [])
          if (offCalls.has(call)) append(resultsByCall, call, record);
      }
    }
    const includeResults = (sibling: IndexedRecord): void => {
      for (const call of sibling.toolUses ?? []) {
        // None gathered: every result of the call is on the chain already.
        const results = resultsByCall.get(call);
        if (results === undefined) continue;
        // Prefer the result that hangs off this call; else the last one written.
        const result = results.find((candidate) => candidate.parentUuid === sibling.uuid) ?? results.at(-1);
        if (result !== undefined) include(result);
      }
    };
    for (const place of chain) {
      const record = records[place]!;
      if (record.messageId === undefined) continue;
      const siblings = byMessageId.get(record.messageId);
      // None gathered: the message's records are all on the chain, each visited here.
      if (siblings === undefined) includeResults(record);
      else {
        for (const sibling of siblings) {
          include(sibling);
          includeResults(sibling);
        }
      }
    }
    const lines = new Map<number, string>();
    let abandonedRecords = 0;
    let abandonedBranches = 0;
    for (let place = 0; place < records.length; place++) {
      const record = records[place]!;
      if (isIncluded(place)) {
        lines.set(record.line, record.uuid);
        continue;
      }
      abandonedRecords += 1;
      const parent = record.parent === null ? undefined : placeOf.get(record.parent);
      // Off the chain from where it left it (or from nowhere the file holds): a branch of its own.
      if (parent === undefined || included[parent] === 1) abandonedBranches += 1;
    }
    return { ok: true, value: { included: lines, abandonedRecords, abandonedBranches } };
  }

  /**
   * The leaf: the record `last-prompt` names, moved on to the last record written after it that
   * descends from it (the agent may have gone on without writing another `last-prompt`); without
   * one, the last record of the file.
   */
  private findLeaf(recordOf: (uuid: string) => IndexedRecord | undefined): IndexedRecord {
    const last = this.indexed.at(-1)!;
    const named = this.leafUuid === undefined ? undefined : recordOf(this.leafUuid);
    if (named === undefined) return last;
    const descends = new Set([named.uuid]);
    let leaf = named;
    for (const record of this.indexed) {
      if (record.line <= named.line) continue;
      if (record.parent !== null && descends.has(record.parent)) {
        descends.add(record.uuid);
        leaf = record;
      }
    }
    return leaf;
  }
}

/** What is wrong with a chain record's own fields, or undefined. */
function chainRecordProblem(record: Json, type: string): string | undefined {
  if (typeof record.uuid !== "string" || record.uuid === "")
    return `a ${type} record needs a string \`uuid\``;
  const parent = record.parentUuid ?? null;
  if (parent !== null && typeof parent !== "string") return "`parentUuid` must be a string or null";
  if (typeof record.timestamp !== "string" || Number.isNaN(Date.parse(record.timestamp))) {
    return `a ${type} record needs a \`timestamp\``;
  }
  if (type === "user" || type === "assistant") {
    const message = record.message;
    if (!isRecord(message)) return `a ${type} record needs a \`message\` object`;
    const content = message.content;
    if (typeof content !== "string" && !(Array.isArray(content) && content.every(isRecord))) {
      return "`message.content` must be a string or an array of blocks";
    }
  }
  return undefined;
}

/** Pass 2 over a Claude Code session: the chain's records, mapped and finished as they come. */
class ClaudeCodeConverter implements SessionConverter {
  private readonly mapper: ClaudeCodeMapper;
  /**
   * What converting noted and counted, said after what pass 1 did (`plan.warnings`, its
   * summary's counts): its own, so a converter that goes on under a later plan (`rebase`) counts
   * nothing twice.
   */
  private readonly warnings: string[] = [];
  private readonly skipped: Record<string, number> = {};
  private readonly unknownFields: Record<string, number> = {};
  private readonly finisher: EventFinisher;

  constructor(
    private plan: {
      readonly label: string;
      readonly key: string;
      /** Line → uuid of the records on the chain. */
      readonly included: ReadonlyMap<number, string>;
      readonly title: string | undefined;
      readonly summary: Omit<AgentImportSummary, "turns">;
      readonly warnings: string[];
      readonly validate: boolean;
    },
  ) {
    this.mapper = new ClaudeCodeMapper(plan.label, this.warnings, this.skipped, this.unknownFields);
    this.finisher = new EventFinisher(plan.key, plan.validate);
  }

  addLine(text: string, line: number): Parsed<ConversationEvent[]> {
    if (!this.plan.included.has(line)) return { ok: true, value: [] };
    const where = `${this.plan.label}:${line}`;
    const parsed = parseRecordLine(text, where, "claude-code");
    if (!parsed.ok) return parsed;
    // Read again from the file: checked again (pass 1 checked the record it read then).
    const type = parsed.value.type as string;
    if (!CHAIN_TYPES.has(type) || chainRecordProblem(parsed.value, type) !== undefined)
      return changedFile(where);
    return this.addRecord(parsed.value, line);
  }

  /** A record pass 1 read and checked (kept by it, or by `SessionLines`). */
  addRecord(record: Json, line: number): Parsed<ConversationEvent[]> {
    const uuid = this.plan.included.get(line);
    if (uuid === undefined) return { ok: true, value: [] };
    const where = `${this.plan.label}:${line}`;
    const type = record.type as string;
    if (record.uuid !== uuid || !CHAIN_TYPES.has(type)) return changedFile(where);
    const raw =
      type === "attachment" && !Array.isArray(record.rendered)
        ? slimAttachment(record)
        : withoutToolUseResult(record);
    this.mapper.add({ line, uuid, type, timestamp: record.timestamp as string, raw });
    return this.finisher.finish(this.mapper.drafts.takeSettled());
  }

  peek(): Parsed<ConversationEvent[]> {
    return this.finisher.peek(this.mapper.drafts.drafts);
  }

  /** Goes on under `later` when the chain's records up to line `converted` are the same. */
  rebase(later: SessionConverter, converted: number): boolean {
    if (!(later instanceof ClaudeCodeConverter) || later.plan.key !== this.plan.key) return false;
    if (!chainAgrees(this.plan.included, later.plan.included, converted)) return false;
    this.plan = later.plan;
    return true;
  }

  finish(): Parsed<SessionEnd> {
    this.mapper.end();
    const drafts = this.mapper.drafts;
    const summary = {
      ...this.plan.summary,
      skipped: addedCounts(this.plan.summary.skipped, this.skipped),
      unknownFields: addedCounts(this.plan.summary.unknownFields ?? {}, this.unknownFields),
      turns: drafts.turn + 1,
      compactions: this.mapper.compactions,
    };
    const title = this.plan.title ?? titleFromPrompt(this.mapper.firstPrompt);
    return this.finisher.end(drafts.drafts.splice(0), title, summary, [
      ...this.plan.warnings,
      ...this.warnings,
    ]);
  }
}

function changedFile(where: string): Parsed<never> {
  return interopError(`${where}: the file changed while cxc read it; import it again`);
}

/** Converts a whole file's text (for tests and small files; the shell streams large ones). */
export function importClaudeCodeSession(text: string, label: string): Parsed<AgentImport> {
  return importSessionText(text, new ClaudeCodeSessionReader(label));
}

/** The record without `toolUseResult` (Claude Code's second copy of a tool's output, for its UI). */
export function withoutToolUseResult(record: Json): Json {
  if (!("toolUseResult" in record)) return record;
  const { toolUseResult: _result, ...kept } = record;
  return kept;
}

/** An attachment that carried nothing to the model: only what names it. */
function slimAttachment(record: Json): Json {
  const attachment = isRecord(record.attachment) ? { type: record.attachment.type } : undefined;
  return { type: record.type, ...(attachment ? { attachment } : {}) };
}

/** The record without its chain fields (what an export writes back with a new chain). */
export function withoutChainFields(record: Json): Json {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !CHAIN_FIELDS.has(key)));
}

/** Maps the records of the active chain to event drafts. */
class ClaudeCodeMapper {
  readonly drafts = new DraftList();
  compactions = 0;
  firstPrompt: string | undefined;
  private model: string | undefined;
  /** True from a prompt until the assistant answers: a file attachment then belongs to the prompt. */
  private promptOpen = false;
  private boundary: ChainRecord | undefined;
  /** Context attachments seen while no turn was open, for the next prompt. */
  private pendingContext: Json[] = [];
  private readonly turnOfUuid = new Map<string, number>();

  private readonly leftOut: LeftOutBlocks;

  constructor(
    private readonly label: string,
    warnings: string[],
    private readonly skipped: Record<string, number>,
    unknownFields: Record<string, number>,
  ) {
    this.leftOut = new LeftOutBlocks(KNOWN_BLOCKS, warnings, unknownFields);
  }

  /** Maps the next record of the chain (in file order). */
  add(record: ChainRecord): void {
    const where = `${this.label}:${record.line}`;
    if (record.type === "user") this.user(record, where);
    else if (record.type === "assistant") this.assistant(record, where);
    else if (record.type === "system") this.system(record);
    else this.attachment(record, where);
    if (this.drafts.turn >= 0) this.turnOfUuid.set(record.uuid, this.drafts.turn);
  }

  /** After the last record. */
  end(): void {
    if (this.pendingContext.length > 0)
      count(this.skipped, "context after the last turn", this.pendingContext.length);
  }

  private user(record: ChainRecord, where: string): void {
    const raw = record.raw;
    const message = raw.message as Json;
    const blocks: Json[] =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : (message.content as Json[]);
    const ts = record.timestamp;
    const pinned = pinnedBlocks(raw);
    if (blocks.some((block) => block.type === "tool_result")) {
      for (const [index, block] of blocks.entries()) {
        if (block.type === "tool_result") {
          this.drafts.add(
            markPinned(
              {
                type: "tool_call_response",
                ts,
                call_id: String(block.tool_use_id),
                content: this.leftOut.text(block.content, where),
                is_error: block.is_error === true,
              },
              pinned.has(index),
            ),
            where,
          );
        } else if (block.type === "text" && typeof block.text === "string") {
          this.drafts.add(
            markPinned({ type: "chat_request", ts, content: block.text }, pinned.has(index)),
            where,
          );
        } else {
          this.leftOut.report(block, where);
        }
      }
      this.promptOpen = false;
      return;
    }
    const text = this.leftOut.text(blocks, where);
    if (raw.isCompactSummary === true) {
      this.compaction(record, text, where);
      return;
    }
    if (raw.isVisibleInTranscriptOnly === true) {
      count(this.skipped, "transcript-only message");
      return;
    }
    if (COMMAND_ECHO.test(text)) {
      count(this.skipped, "command echo");
      return;
    }
    if (raw.isMeta === true) {
      const draft: EventDraft = { type: "chat_request", ts, content: text };
      setMetadata(draft, CLAUDE_CODE_META_KEY, true);
      this.drafts.add(draft, where);
      return;
    }
    this.drafts.openTurn(ts, where);
    this.firstPrompt ??= text;
    const draft: EventDraft = markPinned({ type: "chat_request", ts, content: text }, pinned.has(0));
    if (this.pendingContext.length > 0) {
      setMetadata(draft, CLAUDE_CODE_LEADING_CONTEXT_KEY, this.pendingContext);
      this.pendingContext = [];
    }
    this.drafts.add(draft, where);
    this.promptOpen = true;
  }

  private assistant(record: ChainRecord, where: string): void {
    const raw = record.raw;
    if (raw.isApiErrorMessage === true) {
      count(this.skipped, "API error notice");
      return;
    }
    const message = raw.message as Json;
    const ts = record.timestamp;
    if (typeof message.model === "string" && message.model !== "<synthetic>") {
      const id = `anthropic/${message.model}`;
      if (id !== this.model) {
        this.model = id;
        this.drafts.addModelChange(modelDelta(id, ts), where);
      }
    }
    const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
    if (typeof message.content === "string" && message.content !== "") {
      blocks.push({ type: "text", text: message.content });
    }
    const pinned = pinnedBlocks(raw);
    const before = this.drafts.drafts.length;
    for (const [index, block] of blocks.entries()) {
      if (block.type === "text" && typeof block.text === "string") {
        if (block.text !== "")
          this.drafts.add(
            markPinned({ type: "chat_response", ts, message: block.text }, pinned.has(index)),
            where,
          );
      } else if (block.type === "thinking" && typeof block.thinking === "string") {
        const signature =
          typeof block.signature === "string" && block.signature !== ""
            ? { key: ANTHROPIC_SIGNATURE_KEY, value: block.signature }
            : undefined;
        this.drafts.add(reasoningDraft(block.thinking, ts, signature), where);
      } else if (block.type === "redacted_thinking" && typeof block.data === "string") {
        this.drafts.add(reasoningDraft("", ts, { key: ANTHROPIC_REDACTED_KEY, value: block.data }), where);
      } else if (block.type === "tool_use") {
        const draft = toolCallDraft(ts, block.id, block.name, block.input ?? {});
        this.drafts.add(markPinned(draft, pinned.has(index)), where);
      } else {
        this.leftOut.report(block, where);
      }
    }
    if (this.drafts.drafts.length > before && isRecord(message.usage)) this.usage(message);
    this.promptOpen = false;
  }

  /** The usage Claude Code recorded for the request, on the last event of this record. */
  private usage(message: Json): void {
    const usage = message.usage as Json;
    const details = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
    attachAgentUsage(this.drafts, "claude-code", {
      input: tokenCount(usage.input_tokens),
      output: tokenCount(usage.output_tokens),
      cacheRead: tokenCount(usage.cache_read_input_tokens),
      cacheWrite: tokenCount(usage.cache_creation_input_tokens),
      reasoning: tokenCount(details.thinking_tokens),
      ...(typeof message.id === "string" ? { request: message.id } : {}),
    });
  }

  private system(record: ChainRecord): void {
    if (record.raw.subtype === "compact_boundary") {
      this.boundary = record;
      return;
    }
    count(this.skipped, `system ${String(record.raw.subtype ?? "message")}`);
  }

  private attachment(record: ChainRecord, where: string): void {
    const raw = record.raw;
    const kind = isRecord(raw.attachment) ? String(raw.attachment.type) : "unknown";
    if (!Array.isArray(raw.rendered)) {
      count(this.skipped, `attachment ${kind}`);
      return;
    }
    const kept = withoutChainFields(raw);
    if (this.promptOpen && USER_FILE_ATTACHMENTS.has(kind)) {
      const text = (raw.rendered as unknown[])
        .flatMap((part) => (isRecord(part) && typeof part.content === "string" ? [part.content] : []))
        .join("\n");
      const draft: EventDraft = {
        type: "chat_request",
        ts: record.timestamp,
        content: text,
        author: CLAUDE_CODE_ATTACHMENT_AUTHOR,
      };
      setMetadata(draft, CLAUDE_CODE_ATTACHMENT_KEY, kept);
      this.drafts.add(draft, where);
      return;
    }
    const last =
      this.drafts.turn >= 0 && this.boundary === undefined ? this.drafts.drafts.at(-1)?.draft : undefined;
    if (last === undefined || last.type === "config_delta" || last.type === "compaction") {
      this.pendingContext.push(kept);
      return;
    }
    const metadata = isRecord(last.metadata) ? last.metadata : {};
    const context = Array.isArray(metadata[CLAUDE_CODE_CONTEXT_KEY])
      ? (metadata[CLAUDE_CODE_CONTEXT_KEY] as Json[])
      : [];
    setMetadata(last, CLAUDE_CODE_CONTEXT_KEY, [...context, kept]);
  }

  /** Claude Code's compaction: the overlay over the turns its summary replaced. */
  private compaction(record: ChainRecord, text: string, where: string): void {
    const boundary = this.boundary;
    this.boundary = undefined;
    this.promptOpen = false;
    const metadata = isRecord(boundary?.raw.compactMetadata) ? boundary.raw.compactMetadata : {};
    const preserved = isRecord(metadata.preservedMessages) ? metadata.preservedMessages.uuids : undefined;
    const keptTurns = (Array.isArray(preserved) ? preserved : [])
      .map((uuid) => (typeof uuid === "string" ? this.turnOfUuid.get(uuid) : undefined))
      .filter((turn): turn is number => turn !== undefined);
    const toTurn = (keptTurns.length > 0 ? Math.min(...keptTurns) : this.drafts.turn + 1) - 1;
    if (toTurn < 0) {
      // Nothing before it to cover (the session starts compacted): the summary is what the
      // model is sent first, so it is kept as that request.
      const draft: EventDraft = { type: "chat_request", ts: record.timestamp, content: text };
      setMetadata(draft, CLAUDE_CODE_SUMMARY_KEY, true);
      this.drafts.openTurn(record.timestamp, where);
      this.drafts.add(draft, where);
      return;
    }
    const trigger = typeof metadata.trigger === "string" ? metadata.trigger : "manual";
    this.compactions += 1;
    this.drafts.addGlobal(
      agentCompactionDraft({
        ts: boundary?.timestamp ?? record.timestamp,
        toTurn,
        summary: text,
        source: trigger === "auto" ? "auto" : "user",
        note: `Claude Code's own compaction (${trigger})`,
        origin: { agent: "claude-code", record: boundary?.uuid ?? record.uuid },
      }),
      where,
    );
  }
}

/** The indexes of the blocks cxc's export marked pinned (`CLAUDE_CODE_PINNED_FIELD`). */
function pinnedBlocks(raw: Json): ReadonlySet<number> {
  const field = raw[CLAUDE_CODE_PINNED_FIELD];
  return new Set(
    Array.isArray(field) ? field.filter((value): value is number => Number.isInteger(value)) : [],
  );
}

/** The draft, with `CXC_PINNED_KEY` when it was a pinned message. */
function markPinned(draft: EventDraft, pinned: boolean): EventDraft {
  if (pinned) setMetadata(draft, CXC_PINNED_KEY, true);
  return draft;
}
