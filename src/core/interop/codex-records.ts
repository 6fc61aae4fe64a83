/**
 * Codex rollout records → event drafts, one record at a time (pass 2 of codex.ts). Pure.
 *
 * - `response_item` `message`: a user prompt opens a turn (Codex's own context messages, the
 *   environment and AGENTS.md, are skipped and counted; `developer` messages are Codex's
 *   instructions); assistant text is a message. Items Codex marks `compaction_output` are its
 *   summarizer's answer, which the `compacted` record carries anyway.
 * - `reasoning`: reasoning (summary and raw text); its `encrypted_content`, item id and the model
 *   of the turn go into metadata, so the same model can be given its reasoning back.
 * - `function_call`, `custom_tool_call` (free-form input, kept as `{input}` and marked so an export
 *   writes it back as one), `local_shell_call` and their outputs: tool calls and results.
 * - `turn_context` sets the model (`<session_meta.model_provider>/<model>`); `event_msg`
 *   `task_started` says a turn began before its prompt arrives.
 * - `compacted`: the overlay of Codex's own compaction (see `CodexMapper.compaction`).
 */
import {
  OPENAI_ENCRYPTED_REASONING_KEY,
  OPENAI_REASONING_ID_KEY,
  OPENAI_REASONING_MODEL_KEY,
} from "../provider-keys.js";
import {
  agentCompactionDraft,
  attachAgentUsage,
  count,
  DraftList,
  type EventDraft,
  modelDelta,
  setMetadata,
  tokenCount,
} from "./agent-session.js";
import { CXC_PINNED_KEY } from "./agents.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";
import type { ConversationEvent, NativeSummary } from "../conversation/events.js";
import { groupTurns } from "../conversation/turns.js";
import { FACTS_HEADING } from "../conversation/summary-message.js";
import { DEFAULT_FACTS_CHARACTERS } from "../../compaction/core/keeping.js";
import { extractRangeFacts, renderRangeFacts } from "../../compaction/core/summary/range-facts.js";

/** Metadata key marking a tool call Codex made with free-form input (`custom_tool_call`). */
export const CODEX_CUSTOM_TOOL_KEY = "codex_custom_tool";

type Json = Record<string, unknown>;

/**
 * The content parts of the Responses API that Codex writes in messages; a part of another kind is
 * one a newer Codex brought (counted as an unknown field; agent-versions.ts).
 */
const KNOWN_PARTS = new Set(["input_text", "input_image", "input_file", "output_text", "refusal"]);
const OK: Parsed<void> = { ok: true, value: undefined };
/** The events a pin holds (the restore renders them; a turn's start is none). */
const PINNABLE = new Set(["chat_request", "chat_response", "tool_call_request", "tool_call_response"]);

/** Records kept out on purpose: Codex's own bookkeeping. */
const BOOKKEEPING = new Set(["event_msg", "world_state", "token_usage_record", "turn_context"]);

/** User-role text Codex writes on its own account (not a prompt): the environment, AGENTS.md. */
export const CODEX_CONTEXT_MESSAGE =
  /^\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions|<permissions instructions>|<skills_instructions>)/;

/** Maps one rollout's records, in order, to drafts (`drafts.takeSettled()` hands them out). */
export class CodexMapper {
  readonly drafts = new DraftList();
  readonly skipped: Record<string, number> = {};
  readonly unknown: Record<string, number> = {};
  /** Content parts of kinds this reader does not know, inside messages it does. */
  readonly unknownFields: Record<string, number> = {};
  compactions = 0;
  firstPrompt: string | undefined;
  private model: string | undefined;
  /** Codex started a turn (`task_started`) whose prompt has not come yet. */
  private turnPending = false;
  /** The prompt of the open turn. */
  private openPrompt: string | undefined;
  /** The rollout records each request's usage (`token_usage_record`, Codex 0.169 and later). */
  private usageRecords = false;
  /**
   * An answer of the conversation's came since the last usage: a usage with none before it is a
   * request of Codex's own (its compaction's summary), not one of the conversation.
   */
  private answered = false;

  /**
   * @param history the events already handed out, for the facts of the turns an encrypted
   *   compaction covers (a reader that keeps none passes nothing, and such an overlay has no facts)
   */
  constructor(
    private readonly provider: string,
    private readonly warnings: string[],
    private readonly history: () => readonly ConversationEvent[] = () => [],
  ) {}

  /** Maps the next record (past `session_meta`); `ts` is its timestamp, normalized. */
  add(record: Json, ts: string, where: string): Parsed<void> {
    const payload = record.payload as Json;
    switch (record.type) {
      case "response_item":
        if (
          (isRecord(record.metadata) && record.metadata.compaction_output === true) ||
          payload.type === "compaction" ||
          payload.type === "compaction_summary"
        ) {
          // The summarizer's answer, or OpenAI's encrypted compaction item: the `compacted`
          // record that follows carries both.
          count(this.skipped, "compaction output");
          return OK;
        }
        return this.pinnedWhenMarked(record, () => this.responseItem(payload, ts, where));
      case "turn_context":
        if (typeof payload.model === "string") this.setModel(payload.model, ts, where);
        break;
      case "compacted":
        this.compaction(payload, ts, where);
        return OK;
      case "event_msg":
        if (payload.type === "task_started" || payload.type === "turn_started") this.turnPending = true;
        // Older Codex records a request's usage only in its `token_count` event.
        else if (payload.type === "token_count" && !this.usageRecords && isRecord(payload.info))
          this.usage(payload.info.last_token_usage);
        break;
      case "token_usage_record":
        this.usageRecords = true;
        this.usage(payload.usage, typeof payload.response_id === "string" ? payload.response_id : undefined);
        break;
    }
    if (BOOKKEEPING.has(record.type as string)) count(this.skipped, record.type as string);
    else count(this.unknown, String(record.type));
    return OK;
  }

  /**
   * Maps a record with `map`; when cxc's export marked its line pinned (`cxc_pinned`), the turn
   * events it made carry `CXC_PINNED_KEY`, for the restore after Codex's own compaction.
   */
  private pinnedWhenMarked(record: Json, map: () => Parsed<void>): Parsed<void> {
    if (record[CXC_PINNED_KEY] !== true) return map();
    const before = this.drafts.drafts.length;
    const mapped = map();
    for (const { draft } of this.drafts.drafts.slice(before)) {
      if (PINNABLE.has(draft.type)) setMetadata(draft, CXC_PINNED_KEY, true);
    }
    return mapped;
  }

  /**
   * A request's usage, on the last event of its answer. Codex counts cached input inside
   * `input_tokens`, as the Responses API does; cxc keeps them apart.
   */
  private usage(usage: unknown, request?: string): void {
    const answered = this.answered;
    this.answered = false;
    if (!isRecord(usage) || !answered) return;
    const cached = tokenCount(usage.cached_input_tokens);
    const written = tokenCount(usage.cache_write_input_tokens);
    attachAgentUsage(this.drafts, "codex", {
      input: Math.max(0, tokenCount(usage.input_tokens) - cached - written),
      output: tokenCount(usage.output_tokens),
      cacheRead: cached,
      cacheWrite: written,
      reasoning: tokenCount(usage.reasoning_output_tokens),
      ...(request === undefined ? {} : { request }),
    });
  }

  private responseItem(item: Json, ts: string, where: string): Parsed<void> {
    const output = item.type === "function_call_output" || item.type === "custom_tool_call_output";
    if (!output && (item.type !== "message" || item.role === "assistant")) this.answered = true;
    switch (item.type) {
      case "message":
        return this.message(item, ts, where);
      case "reasoning":
        this.reasoning(item, ts, where);
        return OK;
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call": {
        if (
          typeof item.call_id !== "string" ||
          (item.type !== "local_shell_call" && typeof item.name !== "string")
        ) {
          return interopError(`${where}: a ${item.type} needs a string \`call_id\` and \`name\``);
        }
        const draft: EventDraft = {
          type: "tool_call_request",
          ts,
          call_id: item.call_id,
          name: item.type === "local_shell_call" ? "local_shell" : (item.name as string),
          arguments: argumentsOf(item),
        };
        if (item.type === "custom_tool_call") setMetadata(draft, CODEX_CUSTOM_TOOL_KEY, true);
        this.drafts.add(draft, where);
        return OK;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        if (typeof item.call_id !== "string") {
          return interopError(`${where}: a ${item.type} needs a string \`call_id\``);
        }
        const output = item.output;
        const content =
          typeof output === "string"
            ? output
            : isRecord(output) && typeof output.content === "string"
              ? output.content
              : JSON.stringify(output ?? "");
        const failed = isRecord(output) && output.success === false;
        this.drafts.add(
          { type: "tool_call_response", ts, call_id: item.call_id, content, is_error: failed },
          where,
        );
        return OK;
      }
      default:
        count(this.unknown, `response_item ${String(item.type)}`);
        return OK;
    }
  }

  private reasoning(item: Json, ts: string, where: string): void {
    const text = [...textsOf(item.summary, "summary_text"), ...textsOf(item.content, "reasoning_text")].join(
      "\n\n",
    );
    const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
    if (text === "" && encrypted === undefined) {
      count(this.skipped, "empty reasoning");
      return;
    }
    const draft: EventDraft = { type: "chat_response", ts, reasoning: text };
    if (encrypted !== undefined) {
      setMetadata(draft, OPENAI_ENCRYPTED_REASONING_KEY, encrypted);
      if (typeof item.id === "string") setMetadata(draft, OPENAI_REASONING_ID_KEY, item.id);
      if (this.model !== undefined) setMetadata(draft, OPENAI_REASONING_MODEL_KEY, this.model);
    }
    this.drafts.add(draft, where);
  }

  private message(item: Json, ts: string, where: string): Parsed<void> {
    if (!Array.isArray(item.content)) return interopError(`${where}: a message needs a \`content\` array`);
    switch (item.role) {
      case "developer":
      case "system":
        // Codex's own instructions (permissions, skills, collaboration mode): not the user's words.
        count(this.skipped, "developer instructions");
        return OK;
      case "user": {
        const text = textsOf(item.content, "input_text").join("\n");
        if (CODEX_CONTEXT_MESSAGE.test(text)) {
          count(this.skipped, "environment context");
          return OK;
        }
        for (const block of item.content) {
          if (isRecord(block) && block.type !== "input_text") {
            this.warnings.push(`${where}: a ${String(block.type)} part was left out`);
            if (!KNOWN_PARTS.has(String(block.type))) count(this.unknownFields, `part ${String(block.type)}`);
          }
        }
        this.drafts.openTurn(ts, where);
        this.turnPending = false;
        this.openPrompt = text;
        this.firstPrompt ??= text;
        this.drafts.add({ type: "chat_request", ts, content: text }, where);
        return OK;
      }
      case "assistant": {
        for (const block of item.content) {
          if (isRecord(block) && !KNOWN_PARTS.has(String(block.type))) {
            count(this.unknownFields, `part ${String(block.type)}`);
          }
        }
        const text = textsOf(item.content, "output_text").join("");
        if (text !== "") this.drafts.add({ type: "chat_response", ts, message: text }, where);
        return OK;
      }
      default:
        count(this.unknown, `message ${String(item.role)}`);
        return OK;
    }
  }

  private setModel(model: string, ts: string, where: string): void {
    const id = `${this.provider}/${model}`;
    if (id === this.model) return;
    this.model = id;
    this.drafts.addModelChange(modelDelta(id, ts), where);
  }

  /**
   * Codex's compaction: from here on its model sees the earlier prompts it kept and its summary
   * (`replacement_history`; older rollouts have only the summary, `message`) instead of what came
   * before. The overlay covers the turns before it (a turn it compacted in the middle of is kept
   * whole, so its prompt is not repeated in the summary), and its summary is those texts in order.
   *
   * A replacement history holding OpenAI's encrypted compaction items (`compaction`, formerly
   * `compaction_summary`) becomes a native overlay (`summary.native`, format `openai-compaction`):
   * the history verbatim, replayed only to the same provider and written back to Codex unchanged;
   * every other model gets a plain notice, the user's messages it kept and cxc's facts of the turns.
   * Made inside a turn, its history holds that turn's prompt (`inside_turn`) and its item the
   * turn's steps so far (`turn_events` of them, the prompt first): the projection marks them in the
   * kept turn, and a native replay and the export back to Codex leave them out, as Codex does.
   */
  private compaction(payload: Json, ts: string, where: string): void {
    const midTurn = this.drafts.turn >= 0 && !this.turnPending;
    const toTurn = midTurn ? this.drafts.turn - 1 : this.drafts.turn;
    const texts: string[] = [];
    let encrypted = false;
    let holdsPrompt = false;
    const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : undefined;
    if (history !== undefined) {
      for (const item of history) {
        if (!isRecord(item)) continue;
        if (item.type === "message" && item.role === "user") {
          const text = textsOf(item.content, "input_text").join("\n");
          if (text !== "" && !CODEX_CONTEXT_MESSAGE.test(text)) texts.push(text);
        } else if (item.type === "compaction" || item.type === "compaction_summary") {
          encrypted ||= typeof item.encrypted_content === "string";
        }
      }
      const repeated = midTurn ? texts.lastIndexOf(this.openPrompt ?? "") : -1;
      if (repeated >= 0) texts.splice(repeated, 1);
      holdsPrompt = repeated >= 0;
    } else if (typeof payload.message === "string" && payload.message !== "") {
      texts.push(payload.message);
    }
    if (toTurn < 0 || (texts.length === 0 && !encrypted)) {
      count(this.skipped, "compacted");
      this.warnings.push(
        `${where}: Codex's own compaction ${toTurn < 0 ? "inside the first turn" : "without a summary"} is not made an overlay (the whole history before it is kept)`,
      );
      return;
    }
    this.compactions += 1;
    const window = typeof payload.window_id === "string" ? { record: payload.window_id } : {};
    const model = this.model ?? `${this.provider}/unknown`;
    const native: NativeSummary | undefined =
      encrypted && history !== undefined
        ? {
            format: "openai-compaction",
            provider: this.provider,
            model,
            items: history.filter(isRecord),
            ...(typeof payload.message === "string" ? { message: payload.message } : {}),
            // The turn it was made inside is kept whole; its prompt is in the history already, and
            // its steps so far are what the encrypted item summarized.
            ...(holdsPrompt ? { inside_turn: true, turn_events: this.drafts.turnEvents } : {}),
          }
        : undefined;
    const draft = agentCompactionDraft({
      ts,
      toTurn,
      summary: encrypted ? encryptedFallback(model, this.provider, texts) : texts.join("\n\n"),
      source: "user",
      note: `Codex's own compaction${encrypted ? ", encrypted by OpenAI" : ""}${midTurn ? " (inside a turn, which is kept whole)" : ""}`,
      origin: { agent: "codex", ...window },
      ...(native === undefined ? {} : { native, facts: this.factsOf(toTurn) }),
    });
    this.drafts.addGlobal(draft, where);
  }

  /** cxc's facts block of turns `0..toTurn`, from the events read so far. */
  private factsOf(toTurn: number): string {
    const events = [
      ...this.history(),
      ...this.drafts.drafts.map(({ draft }) => ({ id: "", ...draft }) as unknown as ConversationEvent),
    ];
    const turns = groupTurns(events).filter((turn) => turn.index <= toTurn);
    return renderRangeFacts(extractRangeFacts(turns), {
      maxCharacters: DEFAULT_FACTS_CHARACTERS,
      heading: FACTS_HEADING,
    }).text;
  }
}

/** The first line of what an encrypted compaction stands as for models that cannot read it. */
export function encryptedCompactionLabel(model: string): string {
  return `[encrypted compaction by ${model}]`;
}

/**
 * What an encrypted compaction stands as for a model that cannot read it: the label, a plain
 * sentence saying so, and the user's messages it kept (cxc's facts of the turns follow it).
 */
function encryptedFallback(model: string, provider: string, texts: readonly string[]): string {
  const said =
    texts.length === 0
      ? "It kept none of the user's messages."
      : "The user's messages it kept follow, then cxc's facts of these turns.";
  return [
    encryptedCompactionLabel(model),
    `Only ${provider} can read this summary; another model gets this notice instead. ${said}`,
    ...texts,
  ].join("\n\n");
}

/** The `text` of the parts of `type` in a Responses API content (or summary) list. */
export function textsOf(parts: unknown, type: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) =>
    isRecord(part) && part.type === type && typeof part.text === "string" ? [part.text] : [],
  );
}

/** A call's arguments as an object: parsed JSON text, `{input}` for free-form input, a shell action. */
function argumentsOf(item: Json): Json {
  if (item.type === "custom_tool_call") return { input: typeof item.input === "string" ? item.input : "" };
  if (item.type === "local_shell_call") return isRecord(item.action) ? item.action : {};
  const text = item.arguments;
  if (typeof text !== "string") return isRecord(text) ? text : {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : { input: value };
  } catch {
    return { input: text };
  }
}
