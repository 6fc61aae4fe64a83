/**
 * Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`) → cxc events.
 * Pure; read line by line like the other agents' files (agent-session.ts), but a rollout is a
 * plain list, not a tree, so each record is mapped as it is read and none is kept.
 *
 * Every line is `{timestamp, type, payload}`. Line 1 is `session_meta` (id, cwd, CLI version, the
 * provider). `response_item` records are what the model saw and said, in the Responses API's
 * shapes: `message` (roles `developer`, `user`, `assistant`), `reasoning`, `function_call`,
 * `function_call_output`, `custom_tool_call` and its output. `turn_context` names the model of each
 * turn. `event_msg`, `world_state` and `token_usage_record` are Codex's bookkeeping. See
 * docs/import-export.md.
 */
import {
  type AgentImport,
  agentTimestamp,
  count,
  DraftList,
  incompleteLastLine,
  finishEvents,
  modelDelta,
  ORIGIN_META_KEY,
  parseRecordLine,
  readFinalFragment,
  reasoningDraft,
  titleFromPrompt,
} from "./agent-session.js";
import { type InteropResult, interopError } from "./jp.js";
import { deriveConversationId, isRecord, timestampMilliseconds } from "./jp-encoding.js";

/** Metadata key for a reasoning item's `encrypted_content` (only the provider can read it). */
export const CODEX_ENCRYPTED_REASONING_KEY = "codex_encrypted_reasoning";

type Json = Record<string, unknown>;

/** Records kept out on purpose: Codex's own bookkeeping. */
const BOOKKEEPING = new Set([
  "event_msg",
  "world_state",
  "token_usage_record",
  "turn_context",
  "session_meta",
]);

/** User-role text Codex writes on its own account (not a prompt): the environment, AGENTS.md. */
const CONTEXT_MESSAGE =
  /^\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions|<permissions instructions>)/;

/** Reads one Codex rollout file, line by line (see `ClaudeCodeSessionReader` for the protocol). */
export class CodexSessionReader {
  private line = 0;
  private meta: Json | undefined;
  private readonly drafts = new DraftList();
  private readonly skipped: Record<string, number> = {};
  private readonly unknown: Record<string, number> = {};
  private readonly warnings: string[] = [];
  private model: string | undefined;
  private firstPrompt: string | undefined;

  constructor(private readonly label: string) {}

  /** Reads the next line (without its newline). */
  addLine(text: string): InteropResult<void> {
    this.line += 1;
    if (text.trim() === "") return { ok: true, value: undefined };
    const where = `${this.label}:${this.line}`;
    const parsed = parseRecordLine(text, where, "codex");
    if (!parsed.ok) return parsed;
    const record = parsed.value;
    if (!isRecord(record.payload)) return interopError(`${where}: a Codex record needs a \`payload\` object`);
    if (this.meta === undefined) {
      if (record.type !== "session_meta" || typeof record.payload.id !== "string") {
        return interopError(
          `${where}: not a Codex session: the first line must be Codex's session_meta record, not a '${String(record.type)}' record`,
        );
      }
      this.meta = record.payload;
      count(this.skipped, "session_meta");
      return { ok: true, value: undefined };
    }
    const ts = agentTimestamp(record.timestamp);
    if (ts === undefined)
      return interopError(`${where}: a ${String(record.type)} record needs a \`timestamp\``);
    const payload = record.payload;
    if (record.type === "response_item") return this.responseItem(payload, ts, where);
    if (record.type === "turn_context" && typeof payload.model === "string")
      this.setModel(payload.model, ts, where);
    if (record.type === "compacted") {
      count(this.skipped, "compacted");
      this.warnings.push(
        `${where}: Codex's own compaction is not made an overlay (cxc imports the whole history before it)`,
      );
      return { ok: true, value: undefined };
    }
    if (BOOKKEEPING.has(record.type as string)) count(this.skipped, record.type as string);
    else count(this.unknown, record.type as string);
    return { ok: true, value: undefined };
  }

  /** Reads text after the last newline; incomplete JSON there is left out with a warning. */
  addFinalFragment(text: string): InteropResult<void> {
    return readFinalFragment(
      text,
      (line) => this.addLine(line),
      () => {
        this.line += 1;
        this.warnings.push(incompleteLastLine(`${this.label}:${this.line}`, "Codex"));
      },
    );
  }

  private responseItem(item: Json, ts: string, where: string): InteropResult<void> {
    switch (item.type) {
      case "message":
        return this.message(item, ts, where);
      case "reasoning": {
        const parts = [...textsOf(item.summary, "summary_text"), ...textsOf(item.content, "reasoning_text")];
        const text = parts.join("\n\n");
        const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
        if (text === "" && encrypted === undefined) {
          count(this.skipped, "empty reasoning");
          return { ok: true, value: undefined };
        }
        const signature =
          encrypted === undefined ? undefined : { key: CODEX_ENCRYPTED_REASONING_KEY, value: encrypted };
        this.drafts.add(reasoningDraft(text, ts, signature), where);
        return { ok: true, value: undefined };
      }
      case "function_call":
      case "custom_tool_call": {
        if (typeof item.call_id !== "string" || typeof item.name !== "string") {
          return interopError(`${where}: a ${item.type} needs a string \`call_id\` and \`name\``);
        }
        this.drafts.add(
          {
            type: "tool_call_request",
            ts,
            call_id: item.call_id,
            name: item.name,
            arguments: argumentsOf(item),
          },
          where,
        );
        return { ok: true, value: undefined };
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        if (typeof item.call_id !== "string")
          return interopError(`${where}: a ${item.type} needs a string \`call_id\``);
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
        return { ok: true, value: undefined };
      }
      default:
        count(this.unknown, `response_item ${String(item.type)}`);
        return { ok: true, value: undefined };
    }
  }

  private message(item: Json, ts: string, where: string): InteropResult<void> {
    if (!Array.isArray(item.content)) return interopError(`${where}: a message needs a \`content\` array`);
    switch (item.role) {
      case "developer":
      case "system":
        // Codex's own instructions (permissions, skills, collaboration mode): not the user's words.
        count(this.skipped, "developer instructions");
        return { ok: true, value: undefined };
      case "user": {
        const text = textsOf(item.content, "input_text").join("\n");
        if (CONTEXT_MESSAGE.test(text)) {
          count(this.skipped, "environment context");
          return { ok: true, value: undefined };
        }
        for (const block of item.content) {
          if (isRecord(block) && block.type !== "input_text") {
            this.warnings.push(`${where}: a ${String(block.type)} part was left out`);
          }
        }
        this.drafts.openTurn(ts, where);
        this.firstPrompt ??= text;
        this.drafts.add({ type: "chat_request", ts, content: text }, where);
        return { ok: true, value: undefined };
      }
      case "assistant": {
        const text = textsOf(item.content, "output_text").join("");
        if (text !== "") this.drafts.add({ type: "chat_response", ts, message: text }, where);
        return { ok: true, value: undefined };
      }
      default:
        count(this.unknown, `message ${String(item.role)}`);
        return { ok: true, value: undefined };
    }
  }

  private setModel(model: string, ts: string, where: string): void {
    const provider = typeof this.meta?.model_provider === "string" ? this.meta.model_provider : "openai";
    const id = `${provider}/${model}`;
    if (id === this.model) return;
    this.model = id;
    this.drafts.addModelChange(modelDelta(id, ts), where);
  }

  /** Builds the conversation from what was read. */
  finish(): InteropResult<AgentImport> {
    const meta = this.meta;
    if (meta === undefined) return interopError(`${this.label}: not a Codex session: the file is empty`);
    if (this.drafts.turn < 0) {
      return interopError(`${this.label}: a Codex session without a single prompt; nothing to import`);
    }
    const sessionId = meta.id as string;
    const key = `codex:${sessionId}`;
    const events = finishEvents(this.drafts.drafts, key);
    if (!events.ok) return events;
    const createdAt =
      agentTimestamp(meta.timestamp) ?? events.value.find((event) => event.type !== "unknown")?.ts;
    const created = createdAt ?? "1970-01-01T00:00:00.000Z";
    const title = titleFromPrompt(this.firstPrompt);
    const origin: Json = { agent: "codex", session_id: sessionId };
    if (typeof meta.cwd === "string") origin.cwd = meta.cwd;
    if (typeof meta.cli_version === "string") origin.version = meta.cli_version;
    return {
      ok: true,
      value: {
        conversation: {
          id: deriveConversationId(timestampMilliseconds(created), key),
          sourceId: key,
          ...(title === undefined ? {} : { title }),
          createdAt: created,
          archived: false,
          extra: { [ORIGIN_META_KEY]: origin },
          events: events.value,
        },
        summary: {
          agent: "codex",
          lines: this.line,
          turns: this.drafts.turn + 1,
          compactions: 0,
          skipped: this.skipped,
          unknown: this.unknown,
          sideChainRecords: 0,
          abandonedBranches: 0,
          abandonedRecords: 0,
        },
        warnings: this.warnings,
      },
    };
  }
}

/** Converts a whole file's text (for tests and small files; the shell streams large ones). */
export function importCodexSession(text: string, label: string): InteropResult<AgentImport> {
  const reader = new CodexSessionReader(label);
  const lines = text.split("\n");
  const fragment = lines.pop() ?? "";
  for (const line of lines) {
    const added = reader.addLine(line);
    if (!added.ok) return added;
  }
  const last = reader.addFinalFragment(fragment);
  if (!last.ok) return last;
  return reader.finish();
}

/** The `text` of the parts of `type` in a Responses API content (or summary) list. */
function textsOf(parts: unknown, type: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) =>
    isRecord(part) && part.type === type && typeof part.text === "string" ? [part.text] : [],
  );
}

/** A call's arguments as an object: parsed JSON text, or `{input}` for free-form input. */
function argumentsOf(item: Json): Json {
  if (item.type === "custom_tool_call") return { input: typeof item.input === "string" ? item.input : "" };
  const text = item.arguments;
  if (typeof text !== "string") return isRecord(text) ? text : {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : { input: value };
  } catch {
    return { input: text };
  }
}
