/**
 * Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`) → cxc events.
 * Pure, and read in two passes like the other agents' files (agent-session.ts): pass 1
 * (`CodexSessionReader`) validates every line and keeps only the session's identity; pass 2 (the
 * converter its plan makes) maps the records as they come and hands out each event once nothing
 * later can change it, so neither the file nor the conversation is held. A rollout is a plain
 * list, not a tree, so there is no branch to find.
 *
 * Every line is `{timestamp, type, payload}`. The first record is `session_meta` (id, cwd, CLI
 * version, the provider): pass 1 notes its line (blank lines, a lone `\r`, may come before it) and
 * pass 2 starts after it; a later `session_meta` (a resumed session writes one) is bookkeeping. `response_item` records are what the model saw and said, in the Responses API's
 * shapes (codex-records.ts maps them). `turn_context` names the model of each turn. A `compacted`
 * record is Codex's own compaction: an overlay whose summary is what Codex's model saw from then
 * on (the earlier prompts it kept, then its summary), over the turns before it. `event_msg`,
 * `world_state` and `token_usage_record` are Codex's bookkeeping. See docs/import-export.md.
 */
import type { ConversationEvent } from "../conversation/events.js";
import {
  type AgentImport,
  type AgentImportSummary,
  agentTimestamp,
  EventFinisher,
  importSessionText,
  parseRecordLine,
  sessionConversation,
  type SessionConverter,
  type SessionEnd,
  SessionLineIndexer,
  type SessionPlan,
  titleFromPrompt,
} from "./agent-session.js";
import { CodexMapper } from "./codex-records.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

export { CODEX_CUSTOM_TOOL_KEY } from "./codex-records.js";

type Json = Record<string, unknown>;

/** What is wrong with a record past line 1 (its envelope only), or undefined. */
function recordProblem(record: Json): string | undefined {
  if (!isRecord(record.payload)) return "a Codex record needs a `payload` object";
  if (agentTimestamp(record.timestamp) === undefined) {
    return `a ${String(record.type)} record needs a \`timestamp\``;
  }
  return undefined;
}

/**
 * Pass 1 over one Codex rollout (see agent-session.ts for the protocol): the `session_meta`
 * record, then every later line validated and forgotten.
 */
export class CodexSessionReader extends SessionLineIndexer {
  private lastRecord = 0;
  /** The line of the `session_meta` record (the first record; blank lines may come before it). */
  private metaLine = 0;
  private meta: Json | undefined;
  private metaTimestamp: string | undefined;
  /** A `compacted` record holds OpenAI's encrypted compaction (pass 2 then keeps what it read). */
  private encrypted = false;

  /** `keep`: keep the records for pass 2 (`SessionPlan.records`); else it reads them again. */
  constructor(label: string, keep = true) {
    super(label, "codex", "Codex", keep);
  }

  protected addRecord(record: Record<string, unknown>, where: string): Parsed<void> {
    if (this.meta === undefined) {
      if (
        record.type !== "session_meta" ||
        !isRecord(record.payload) ||
        typeof record.payload.id !== "string"
      ) {
        return interopError(
          `${where}: not a Codex session: the first line must be Codex's session_meta record, not a '${String(record.type)}' record`,
        );
      }
      this.meta = record.payload;
      this.metaLine = this.line;
      this.metaTimestamp = agentTimestamp(record.timestamp);
      return { ok: true, value: undefined };
    }
    const problem = recordProblem(record);
    if (problem !== undefined) return interopError(`${where}: ${problem}`);
    if (record.type === "compacted" && !this.encrypted)
      this.encrypted = holdsEncryptedCompaction(record.payload);
    this.lastRecord = this.line;
    this.keep(record);
    return { ok: true, value: undefined };
  }

  finish(): Parsed<SessionPlan> {
    const meta = this.meta;
    if (meta === undefined) return interopError(`${this.label}: not a Codex session: the file is empty`);
    const sessionId = meta.id as string;
    const key = `codex:${sessionId}`;
    // Codex writes the meta before anything else, with the session's own start time.
    const createdAt = agentTimestamp(meta.timestamp) ?? this.metaTimestamp ?? "1970-01-01T00:00:00.000Z";
    const origin: Json = { agent: "codex", session_id: sessionId };
    if (typeof meta.cwd === "string") origin.cwd = meta.cwd;
    if (typeof meta.cli_version === "string") origin.version = meta.cli_version;
    const provider = typeof meta.model_provider === "string" ? meta.model_provider : "openai";
    const { label, warnings, lastRecord, metaLine, encrypted, records } = this;
    const lines = this.line;
    const version = typeof meta.cli_version === "string" ? meta.cli_version : undefined;
    return {
      ok: true,
      value: {
        conversation: sessionConversation(key, createdAt, origin),
        lines: lastRecord,
        warnings,
        wants: (line) => line > metaLine,
        ...(records === undefined ? {} : { records }),
        convert: () =>
          new CodexConverter({
            label,
            key,
            provider,
            lines,
            metaLine,
            version,
            warnings,
            encrypted,
            validate: this.validateEvents,
          }),
      },
    };
  }
}

/** Pass 2 over a Codex rollout: its records, mapped and finished as they come. */
class CodexConverter implements SessionConverter {
  private readonly mapper: CodexMapper;
  private readonly finisher: EventFinisher;
  /** `session_meta` records after the first. */
  private extraMeta = 0;
  /** The events handed out so far, when the plan keeps them. */
  private readonly history: ConversationEvent[] = [];

  constructor(
    private plan: {
      readonly label: string;
      readonly key: string;
      /** The provider Codex was configured with (`session_meta.model_provider`). */
      readonly provider: string;
      /** Lines pass 1 read. */
      readonly lines: number;
      /** The line of the `session_meta` pass 1 read the session from. */
      readonly metaLine: number;
      /** Codex's version (`session_meta.cli_version`). */
      readonly version: string | undefined;
      readonly warnings: string[];
      /**
       * The rollout holds OpenAI's encrypted compaction: the events handed out are kept for the
       * facts of the turns it covers (the only case a Codex import holds the conversation).
       */
      readonly encrypted: boolean;
      /** Check each event against the event schemas (`SessionLineIndexer.validateEvents`). */
      readonly validate: boolean;
    },
  ) {
    this.mapper = new CodexMapper(plan.provider, plan.warnings, () => this.history);
    this.finisher = new EventFinisher(plan.key, plan.validate);
  }

  addLine(text: string, line: number): Parsed<ConversationEvent[]> {
    if (line <= this.plan.metaLine || text.trim() === "") return { ok: true, value: [] };
    const parsed = parseRecordLine(text, `${this.plan.label}:${line}`, "codex");
    return parsed.ok ? this.addRecord(parsed.value, line) : parsed;
  }

  addRecord(record: Json, line: number): Parsed<ConversationEvent[]> {
    if (line <= this.plan.metaLine) return { ok: true, value: [] };
    const where = `${this.plan.label}:${line}`;
    if (recordProblem(record) !== undefined) {
      return interopError(`${where}: the file changed while cxc read it; import it again`);
    }
    if (record.type === "session_meta") {
      // Codex writes the session's metadata again (a resumed or forked session): bookkeeping.
      this.extraMeta += 1;
      return { ok: true, value: [] };
    }
    const mapped = this.mapper.add(record, agentTimestamp(record.timestamp)!, where);
    if (!mapped.ok) return mapped;
    const finished = this.finisher.finish(this.mapper.drafts.takeSettled());
    if (finished.ok && this.plan.encrypted) this.history.push(...finished.value);
    return finished;
  }

  peek(): Parsed<ConversationEvent[]> {
    if (this.mapper.drafts.turn < 0) return this.noPrompt();
    return this.finisher.peek(this.mapper.drafts.drafts);
  }

  /**
   * Goes on under `later` when it reads the session from the same `session_meta` and in the same
   * way (an encrypted compaction appended since makes the converter keep the events from the first).
   */
  rebase(later: SessionConverter, _converted: number): boolean {
    if (!(later instanceof CodexConverter)) return false;
    const [before, after] = [this.plan, later.plan];
    if (
      before.key !== after.key ||
      before.metaLine !== after.metaLine ||
      before.provider !== after.provider ||
      before.encrypted !== after.encrypted
    )
      return false;
    this.plan = after;
    return true;
  }

  private noPrompt(): Parsed<never> {
    return interopError(`${this.plan.label}: a Codex session without a single prompt; nothing to import`);
  }

  finish(): Parsed<SessionEnd> {
    const mapper = this.mapper;
    if (mapper.drafts.turn < 0) return this.noPrompt();
    const summary: AgentImportSummary = {
      agent: "codex",
      lines: this.plan.lines,
      turns: mapper.drafts.turn + 1,
      compactions: mapper.compactions,
      skipped: mapper.skipped,
      unknown: mapper.unknown,
      unknownFields: mapper.unknownFields,
      ...(this.plan.version === undefined ? {} : { version: this.plan.version }),
      sideChainRecords: 0,
      abandonedBranches: 0,
      abandonedRecords: 0,
    };
    return this.finisher.end(
      mapper.drafts.drafts.splice(0),
      titleFromPrompt(mapper.firstPrompt),
      { ...summary, skipped: { session_meta: 1 + this.extraMeta, ...summary.skipped } },
      this.plan.warnings,
    );
  }
}

/** True when a `compacted` record's replacement history holds an encrypted compaction item. */
function holdsEncryptedCompaction(payload: unknown): boolean {
  if (!isRecord(payload) || !Array.isArray(payload.replacement_history)) return false;
  return payload.replacement_history.some(
    (item) =>
      isRecord(item) &&
      (item.type === "compaction" || item.type === "compaction_summary") &&
      typeof item.encrypted_content === "string",
  );
}

/** Converts a whole file's text (for tests and small files; the shell streams large ones). */
export function importCodexSession(text: string, label: string): Parsed<AgentImport> {
  return importSessionText(text, new CodexSessionReader(label));
}
