/**
 * pi session files (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, versions 1–3; a newer
 * one is read as version 3, and what it holds that cxc does not know is counted) → cxc
 * events. Pure: the shell feeds the file's lines to a `PiSessionReader` (pass 1, an index of the
 * entries), then the branch's lines to the converter its plan makes (pass 2; see
 * agent-session.ts); writing a session is pi-export.ts. The mapping is documented in docs/import-export.md; in short:
 *
 * - Line 1 is the header (`type: "session"`, `version`, `id`, `cwd`). Entries form a tree
 *   (`id`/`parentId`; version 1 files are a plain list, chained in order as pi migrates them);
 *   the conversation is the branch from the leaf (the last entry) back to the root, as pi builds
 *   it. Entries off that branch are abandoned branches.
 * - A user message opens a turn; assistant text, thinking (signature in metadata) and tool calls,
 *   and tool results map as for Claude Code; replies that failed or were aborted are left out,
 *   as pi leaves them out of what it sends. `model_change` and the assistant's provider/model
 *   become config deltas. What pi sends as user text (bash runs, extension messages, branch
 *   summaries) becomes `chat_request`s in pi's words.
 * - A `compaction` entry becomes an overlay whose summary is pi's, over the turns before the one
 *   holding `firstKeptEntryId` (a turn pi split is kept whole); with no turn before it, the
 *   summary is the session's first request, as pi sends it.
 */
import { ANTHROPIC_SIGNATURE_KEY, PI_SIGNATURE_KEY } from "../provider-keys.js";
import type { ConversationEvent } from "../conversation/events.js";
import {
  agentCompactionDraft,
  type AgentImport,
  type AgentImportSummary,
  agentTimestamp,
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
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

export { PI_SIGNATURE_KEY };
/** Metadata key naming what pi message or entry a `chat_request` was made from (`bashExecution`, …). */
export const PI_SOURCE_KEY = "pi_source";
/** Metadata key holding pi's own summary text on a `chat_request` made from a compaction. */
export const PI_SUMMARY_KEY = "pi_summary";

const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/** The newest pi session format this reader knows. */
export const PI_SESSION_VERSION = 3;

const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const SUMMARY_SUFFIX = "\n</summary>";

/** Entry types that carry nothing pi sends to the model; skipped and counted. */
const BOOKKEEPING = new Set(["thinking_level_change", "custom", "label", "session_info"]);

type Json = Record<string, unknown>;

/** The content blocks pi writes; a block of another kind is one a newer pi brought. */
const KNOWN_BLOCKS = new Set(["text", "image", "thinking", "toolCall"]);

/** An entry of the active branch as the mapper reads it in pass 2. */
interface Entry {
  readonly line: number;
  readonly id: string;
  readonly raw: Json;
}

/** What pass 1 keeps of an entry: its place in the tree, none of its content. */
interface IndexedEntry {
  readonly line: number;
  readonly id: string;
  readonly parentId: string | null;
  /** The entry's own timestamp, kept only while the header has none (it may become `createdAt`). */
  readonly timestamp?: unknown;
}

/**
 * Pass 1 over one pi session file (see agent-session.ts for the protocol; `ClaudeCodeSessionReader`
 * for the line protocol): the header, then an index entry per entry; `finish` finds the branch.
 */
export class PiSessionReader extends SessionLineIndexer {
  private header: Json | undefined;
  private headerTimestamp: string | undefined;
  private version = 1;
  /** The header's format version as written (a newer one is read as the newest cxc knows). */
  private fileVersion = 1;
  private readonly entries: IndexedEntry[] = [];
  private readonly unknown: Record<string, number> = {};
  private previousId: string | null = null;

  /** `keep`: keep the entries for pass 2 (`SessionPlan.records`); else it reads them again. */
  constructor(label: string, keep = true) {
    super(label, "pi", "pi", keep);
  }

  protected addRecord(record: Record<string, unknown>, where: string): Parsed<void> {
    if (this.header === undefined) return this.readHeader(record, where);
    if (record.type === "session") return interopError(`${where}: a second session header`);
    const problem = entryProblem(record, this.version);
    if (problem !== undefined) return interopError(`${where}: ${problem}`);
    let id: string;
    let parentId: string | null;
    if (this.version >= 2) {
      id = record.id as string;
      parentId = (record.parentId as string | null | undefined) ?? null;
    } else {
      // Version 1 is a plain list: pi gives each entry an id and chains them in order.
      id = `line-${this.line}`;
      parentId = this.previousId;
    }
    this.previousId = id;
    this.entries.push({
      line: this.line,
      id,
      parentId,
      ...(this.headerTimestamp === undefined ? { timestamp: record.timestamp } : {}),
    });
    if (!this.convertNow(record, id)) this.keep(record);
    return { ok: true, value: undefined };
  }

  private readHeader(record: Json, where: string): Parsed<void> {
    if (record.type !== "session" || typeof record.id !== "string") {
      return interopError(
        `${where}: not a pi session: the first line must be pi's session header ({"type":"session",…}), not a '${String(record.type)}' record`,
      );
    }
    const version = record.version ?? 1;
    if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
      return interopError(`${where}: the session header's \`version\` must be a whole number from 1`);
    }
    // A newer format is read as the newest cxc knows; what it does not know is counted and said
    // (agent-versions.ts), and an entry it cannot read is still an error naming its line.
    this.header = record;
    this.headerTimestamp = agentTimestamp(record.timestamp);
    this.fileVersion = version;
    this.version = Math.min(version, PI_SESSION_VERSION);
    return { ok: true, value: undefined };
  }

  /** Finds the active branch; the plan converts its entries in pass 2. */
  finish(): Parsed<SessionPlan> {
    const header = this.header;
    if (header === undefined) return interopError(`${this.label}: not a pi session: the file is empty`);
    const entries = this.entries;
    // Where each id's entry is (the last written, if an id was written twice): the branch is
    // marked by that place in an array of flags, not gathered in a set of ids.
    const placeOf = new Map<string, number>();
    for (let place = 0; place < entries.length; place++) placeOf.set(entries[place]!.id, place);
    const unique = placeOf.size === entries.length;
    const onPath = new Uint8Array(entries.length);
    const path: IndexedEntry[] = [];
    for (let current = entries.at(-1); current !== undefined; ) {
      const place = placeOf.get(current.id)!;
      if (onPath[place] === 1) {
        return interopError(`${this.label}:${current.line}: the id/parentId chain loops back on itself`);
      }
      onPath[place] = 1;
      path.push(current);
      if (current.parentId === null) break;
      const parentPlace = placeOf.get(current.parentId);
      const parent = parentPlace === undefined ? undefined : entries[parentPlace];
      if (parent === undefined) {
        this.warnings.push(
          `${this.label}:${current.line}: its parent ${current.parentId} is not in the file; the history before it is missing`,
        );
      } else if (parent.line > current.line) {
        // pi appends entries under entries it wrote before; pass 2 reads the branch in file order.
        return interopError(
          `${this.label}:${current.line}: its parent ${current.parentId} comes later in the file`,
        );
      }
      current = parent;
    }
    path.reverse();
    let abandonedRecords = 0;
    let abandonedBranches = 0;
    for (let place = 0; place < entries.length; place++) {
      const entry = entries[place]!;
      if (onPath[unique ? place : placeOf.get(entry.id)!] === 1) continue;
      abandonedRecords += 1;
      const parent = entry.parentId === null ? undefined : placeOf.get(entry.parentId);
      // Off the branch from where it left it (or from nowhere the file holds): a branch of its own.
      if (parent === undefined || onPath[parent] === 1) abandonedBranches += 1;
    }
    const included = new Map<number, string>();
    for (const entry of path) included.set(entry.line, entry.id);
    const sessionId = header.id as string;
    const key = `pi:${sessionId}`;
    const createdAt =
      this.headerTimestamp ??
      (path[0] ? agentTimestamp(path[0].timestamp) : undefined) ??
      "1970-01-01T00:00:00.000Z";
    const origin: Json = { agent: "pi", session_id: sessionId, version: this.fileVersion };
    if (typeof header.cwd === "string") origin.cwd = header.cwd;
    const { label, warnings, version, unknown } = this;
    const summary = {
      agent: "pi" as const,
      lines: this.line,
      unknown,
      unknownFields: {},
      version: String(this.fileVersion),
      sideChainRecords: 0,
      abandonedBranches,
      abandonedRecords,
    };
    return this.chainPlan(
      sessionConversation(key, createdAt, origin),
      included,
      () => new PiConverter({ label, key, version, included, summary, warnings }),
    );
  }

  /** Converting as read: a converter whose branch is every entry read (see `convertAsRead`). */
  protected override earlyConverter(
    included: ReadonlyMap<number, string>,
    first: Json,
  ): EarlyStart | undefined {
    const header = this.header;
    if (header === undefined) return undefined;
    const key = `pi:${String(header.id)}`;
    const converter = new PiConverter({
      label: this.label,
      key,
      version: this.version,
      included,
      summary: summaryToCome("pi"),
      warnings: this.warnings,
    });
    // As `finish` has it, with this entry the branch's first.
    const createdAt = this.headerTimestamp ?? agentTimestamp(first.timestamp) ?? "1970-01-01T00:00:00.000Z";
    return { converter, key, createdAt };
  }
}

/** What is wrong with an entry's own fields (in a file of format `version`), or undefined. */
function entryProblem(record: Json, version: number): string | undefined {
  if (version >= 2) {
    if (typeof record.id !== "string" || record.id === "") {
      return `a ${String(record.type)} entry needs a string \`id\``;
    }
    if (record.parentId !== null && record.parentId !== undefined && typeof record.parentId !== "string") {
      return "`parentId` must be a string or null";
    }
  }
  if (record.type === "message") {
    const message = record.message;
    if (!isRecord(message) || typeof message.role !== "string") {
      return "a message entry needs a `message` with a string `role`";
    }
  }
  return undefined;
}

/** Pass 2 over a pi session: the branch's entries, mapped and finished as they come. */
class PiConverter implements SessionConverter {
  private readonly mapper: PiMapper;
  private readonly finisher: EventFinisher;
  /**
   * What converting noted and counted, said after what pass 1 did (`plan.warnings`, its
   * summary's counts): its own, so a converter that goes on under a later plan (`rebase`) counts
   * nothing twice.
   */
  private readonly warnings: string[] = [];
  private readonly unknown: Record<string, number> = {};
  private readonly unknownFields: Record<string, number> = {};

  constructor(
    private plan: {
      readonly label: string;
      readonly key: string;
      readonly version: number;
      /** Line → id of the entries on the branch. */
      readonly included: ReadonlyMap<number, string>;
      readonly summary: Omit<AgentImportSummary, "turns" | "compactions" | "skipped">;
      readonly warnings: readonly string[];
    },
  ) {
    this.mapper = new PiMapper(plan.label, this.warnings, plan.version, this.unknown, this.unknownFields);
    this.finisher = new EventFinisher(plan.key);
  }

  addLine(text: string, line: number): Parsed<ConversationEvent[]> {
    if (!this.plan.included.has(line)) return { ok: true, value: [] };
    const parsed = parseRecordLine(text, `${this.plan.label}:${line}`, "pi");
    return parsed.ok ? this.addRecord(parsed.value, line) : parsed;
  }

  addRecord(record: Json, line: number): Parsed<ConversationEvent[]> {
    const id = this.plan.included.get(line);
    if (id === undefined) return { ok: true, value: [] };
    const changed =
      record.type === "session" ||
      entryProblem(record, this.plan.version) !== undefined ||
      (this.plan.version >= 2 && record.id !== id);
    if (changed) {
      return interopError(`${this.plan.label}:${line}: the file changed while cxc read it; import it again`);
    }
    this.mapper.add({ line, id, raw: record });
    return this.finisher.finish(this.mapper.drafts.takeSettled());
  }

  finish(): Parsed<SessionEnd> {
    const mapper = this.mapper;
    const summary = {
      ...this.plan.summary,
      turns: mapper.drafts.turn + 1,
      compactions: mapper.compactions,
      skipped: mapper.skipped,
      unknown: addedCounts(this.plan.summary.unknown, this.unknown),
      unknownFields: addedCounts(this.plan.summary.unknownFields ?? {}, this.unknownFields),
    };
    const title = mapper.name ?? titleFromPrompt(mapper.firstPrompt);
    return this.finisher.end(mapper.drafts.drafts.splice(0), title, summary, [
      ...this.plan.warnings,
      ...this.warnings,
    ]);
  }

  /** Goes on under `later` when the branch's entries up to line `converted` are the same. */
  rebase(later: SessionConverter, converted: number): boolean {
    if (!(later instanceof PiConverter) || later.plan.key !== this.plan.key) return false;
    if (!chainAgrees(this.plan.included, later.plan.included, converted)) return false;
    this.plan = later.plan;
    return true;
  }
}

/** Converts a whole file's text (for tests and small files; the shell streams large ones). */
export function importPiSession(text: string, label: string): Parsed<AgentImport> {
  return importSessionText(text, new PiSessionReader(label));
}

/** Maps the entries of the active branch to event drafts. */
class PiMapper {
  readonly drafts = new DraftList();
  readonly skipped: Record<string, number> = {};
  compactions = 0;
  firstPrompt: string | undefined;
  name: string | undefined;
  private model: string | undefined;
  private readonly turnOfEntry = new Map<string, number>();

  private readonly leftOut: LeftOutBlocks;

  constructor(
    private readonly label: string,
    private readonly warnings: string[],
    private readonly version: number,
    private readonly unknown: Record<string, number>,
    unknownFields: Record<string, number>,
  ) {
    this.leftOut = new LeftOutBlocks(KNOWN_BLOCKS, warnings, unknownFields);
  }

  /** Maps the next entry of the branch. */
  add(entry: Entry): void {
    const where = `${this.label}:${entry.line}`;
    const ts = agentTimestamp(entry.raw.timestamp) ?? "1970-01-01T00:00:00.000Z";
    this.entry(entry, where, ts);
    if (this.drafts.turn >= 0) this.turnOfEntry.set(entry.id, this.drafts.turn);
  }

  private entry(entry: Entry, where: string, ts: string): void {
    const raw = entry.raw;
    switch (raw.type) {
      case "message":
        this.message(raw.message as Json, where, ts);
        return;
      case "model_change":
        if (typeof raw.provider === "string" && typeof raw.modelId === "string") {
          this.setModel(`${raw.provider}/${raw.modelId}`, ts, where);
        }
        return;
      case "compaction":
        this.compaction(entry, where, ts);
        return;
      case "branch_summary":
        if (typeof raw.summary === "string" && raw.summary !== "") {
          this.userText(
            BRANCH_SUMMARY_PREFIX + raw.summary + SUMMARY_SUFFIX,
            ts,
            where,
            "branch_summary",
            true,
          );
        }
        return;
      case "custom_message":
        this.extensionText(raw.content, ts, where, `custom_message ${String(raw.customType)}`);
        return;
      case "session_info":
        if (typeof raw.name === "string" && raw.name.trim() !== "") this.name = raw.name.trim();
        count(this.skipped, "session_info");
        return;
      default:
        if (typeof raw.type === "string" && BOOKKEEPING.has(raw.type)) count(this.skipped, raw.type);
        else count(this.unknown, String(raw.type));
    }
  }

  private message(message: Json, where: string, ts: string): void {
    const messageTs = agentTimestamp(message.timestamp) ?? ts;
    switch (message.role) {
      case "user": {
        const text = this.leftOut.text(message.content, where);
        this.drafts.openTurn(messageTs, where);
        this.firstPrompt ??= text;
        this.drafts.add({ type: "chat_request", ts: messageTs, content: text }, where);
        return;
      }
      case "assistant":
        this.assistant(message, where, messageTs);
        return;
      case "toolResult":
        this.drafts.add(
          {
            type: "tool_call_response",
            ts: messageTs,
            call_id: String(message.toolCallId),
            content: this.leftOut.text(message.content, where),
            is_error: message.isError === true,
          },
          where,
        );
        return;
      case "bashExecution":
        if (message.excludeFromContext === true) {
          count(this.skipped, "bash run kept out of context");
          return;
        }
        this.userText(bashExecutionText(message), messageTs, where, "bashExecution", true);
        return;
      case "custom":
      case "hookMessage":
        this.extensionText(message.content, messageTs, where, `custom ${String(message.customType)}`);
        return;
      case "branchSummary":
        this.userText(
          BRANCH_SUMMARY_PREFIX + String(message.summary) + SUMMARY_SUFFIX,
          messageTs,
          where,
          "branchSummary",
          true,
        );
        return;
      default:
        count(this.unknown, `message ${String(message.role)}`);
    }
  }

  private assistant(message: Json, where: string, ts: string): void {
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      count(this.skipped, "failed or aborted reply");
      return;
    }
    if (typeof message.provider === "string" && typeof message.model === "string") {
      this.setModel(`${message.provider}/${message.model}`, ts, where);
    }
    const blocks = Array.isArray(message.content) ? message.content : [];
    const before = this.drafts.drafts.length;
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string") {
        if (block.text !== "") this.drafts.add({ type: "chat_response", ts, message: block.text }, where);
      } else if (block.type === "thinking" && typeof block.thinking === "string") {
        const signature =
          typeof block.thinkingSignature === "string" && block.thinkingSignature !== ""
            ? {
                key: message.api === "anthropic-messages" ? ANTHROPIC_SIGNATURE_KEY : PI_SIGNATURE_KEY,
                value: block.thinkingSignature,
              }
            : undefined;
        this.drafts.add(reasoningDraft(block.thinking, ts, signature), where);
      } else if (block.type === "toolCall") {
        this.drafts.add(toolCallDraft(ts, block.id, block.name, block.arguments ?? {}), where);
      } else {
        this.leftOut.report(block, where);
      }
    }
    const usage = message.usage;
    if (this.drafts.drafts.length > before && isRecord(usage)) {
      // pi's `input` is the input neither read from nor written to the cache, as cxc keeps it.
      attachAgentUsage(this.drafts, "pi", {
        input: tokenCount(usage.input),
        output: tokenCount(usage.output),
        cacheRead: tokenCount(usage.cacheRead),
        cacheWrite: tokenCount(usage.cacheWrite),
      });
    }
  }

  /** User-role text pi sends on its own account: a turn of its own, or part of the open one. */
  private userText(text: string, ts: string, where: string, source: string, opensTurn: boolean): void {
    if (opensTurn || this.drafts.turn < 0) this.drafts.openTurn(ts, where);
    const draft: EventDraft = { type: "chat_request", ts, content: text };
    setMetadata(draft, PI_SOURCE_KEY, source);
    this.drafts.add(draft, where);
  }

  /** What an extension put into the conversation (a custom entry or message): text in the open turn. */
  private extensionText(content: unknown, ts: string, where: string, source: string): void {
    this.userText(this.leftOut.text(content, where), ts, where, source, false);
  }

  private setModel(id: string, ts: string, where: string): void {
    if (id === this.model) return;
    this.model = id;
    this.drafts.addModelChange(modelDelta(id, ts), where);
  }

  /** pi's compaction: the overlay over the turns before the one it kept from. */
  private compaction(entry: Entry, where: string, ts: string): void {
    const raw = entry.raw;
    if (typeof raw.summary !== "string") {
      this.warnings.push(`${where}: a compaction without a summary was left out`);
      return;
    }
    let firstKept = typeof raw.firstKeptEntryId === "string" ? raw.firstKeptEntryId : undefined;
    if (firstKept === undefined && this.version === 1 && typeof raw.firstKeptEntryIndex === "number") {
      // Version 1 counts entries from the header (index 0); pi's ids for them are by line.
      firstKept = `line-${raw.firstKeptEntryIndex + 1}`;
    }
    const keptTurn = firstKept === undefined ? undefined : this.turnOfEntry.get(firstKept);
    // Without the kept entry on the branch, pi sends the summary and only what follows it.
    const toTurn = (keptTurn ?? this.drafts.turn + 1) - 1;
    if (toTurn < 0) {
      // Nothing before it to cover (the session starts compacted): the summary is what pi sends
      // first, in pi's words; the summary itself is kept for an export back to pi.
      this.userText(COMPACTION_SUMMARY_PREFIX + raw.summary + SUMMARY_SUFFIX, ts, where, "compaction", true);
      setMetadata(this.drafts.drafts.at(-1)!.draft, PI_SUMMARY_KEY, raw.summary);
      return;
    }
    this.compactions += 1;
    const tokens = typeof raw.tokensBefore === "number" ? ` of ${raw.tokensBefore} tokens` : "";
    this.drafts.addGlobal(
      agentCompactionDraft({
        ts,
        toTurn,
        summary: raw.summary,
        source: "user",
        note: `pi's own compaction${tokens}${raw.fromHook === true ? " (by an extension)" : ""}`,
        origin: { agent: "pi", record: entry.id },
      }),
      where,
    );
  }
}

/** A bash run the user started, in the words pi sends it to the model. */
function bashExecutionText(message: Json): string {
  let text = `Ran \`${String(message.command)}\`\n`;
  text +=
    typeof message.output === "string" && message.output !== ""
      ? `\`\`\`\n${message.output}\n\`\`\``
      : "(no output)";
  if (message.cancelled === true) text += "\n\n(command cancelled)";
  else if (typeof message.exitCode === "number" && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated === true && typeof message.fullOutputPath === "string") {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}
