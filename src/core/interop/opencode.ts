/**
 * opencode sessions → cxc events. Pure: the shell reads a session from opencode's SQLite
 * database (its `session`, `message` and `part` rows) or from the document `opencode export`
 * prints, both in the export's shape — `{info, messages: [{info, parts}]}`, each message's and
 * part's `data` with its `id` — and this module converts it. See docs/import-export.md.
 *
 * Messages are in id order (opencode's ids grow with time), parts in id order within a message:
 *
 * - A user message opens a turn with its text parts (parts opencode marks `ignored` are not
 *   sent, and are left out); other parts (attached images) are left out with a warning. A user
 *   message holding a `compaction` part is opencode's own compaction (below), not a turn.
 *   opencode's synthetic "continue" after an automatic compaction is a turn, as opencode sends it.
 * - An assistant message gives its parts in order: `reasoning` (its Anthropic signature kept),
 *   `text`, `tool` (the call, and its result: `completed` output, or `error` as an error; a call
 *   left `pending` or `running` has none); `step-start`, `step-finish`, `patch`, `snapshot` are
 *   opencode's bookkeeping. Its `tokens` become the usage of its last response, its provider and
 *   model a model change. A reply that failed (`error`) with nothing of its own is left out.
 * - opencode's compaction: the user message with the `compaction` part, then the assistant's
 *   summary (`summary: true`, agent `compaction`). opencode sends from then on "What did we do so
 *   far?", the summary, the kept tail (from the part's `tail_start_id`, if any) and what followed:
 *   an overlay over the turns before the tail's turn (all turns so far without a tail), whose
 *   summary is opencode's. One with no turn before it (a session opening with it) is the first
 *   turn: opencode's question and the summary, as opencode sends them.
 * - A session whose `revert` is set hides the messages from the reverted one on (opencode drops
 *   them at the next prompt): an abandoned branch, left out and counted.
 */
import { toStoredUsage } from "../conversation/fold-stream.js";
import { ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import {
  agentCompactionDraft,
  type AgentImportSummary,
  agentTimestamp,
  count,
  DraftList,
  type EventDraft,
  EventFinisher,
  modelDelta,
  sessionConversation,
  type SessionEnd,
  setMetadata,
  titleFromPrompt,
} from "./agent-session.js";
import { CXC_PINNED_KEY } from "./agents.js";
import type { ImportedConversation } from "./jp.js";
import { interopError } from "./jp.js";
import { isRecord } from "./jp-encoding.js";
import type { Parsed } from "../parsed.js";

type Json = Record<string, unknown>;

/** A session in the shape `opencode export` prints. */
export interface OpencodeDocument {
  readonly info: Json;
  readonly messages: readonly { readonly info: Json; readonly parts: readonly Json[] }[];
}

/** Metadata key marking a `chat_request` opencode wrote itself (its "continue" after a compaction). */
export const OPENCODE_SYNTHETIC_KEY = "opencode_synthetic";

/** What opencode sends in place of the compaction's own user message. */
export const OPENCODE_COMPACTION_PROMPT = "What did we do so far?";

/** Part types that carry nothing opencode sends to the model. */
const BOOKKEEPING_PARTS = new Set(["step-start", "step-finish", "patch", "snapshot", "retry", "agent"]);

/** What is wrong with a session's `info`, or undefined. */
function infoProblem(info: unknown): string | undefined {
  if (!isRecord(info)) return "an opencode session needs an `info` object";
  if (typeof info.id !== "string" || !info.id.startsWith("ses"))
    return "an opencode session's `info.id` must be a session id (`ses_…`)";
  return undefined;
}

/** The new conversation for an opencode session, without its events and title. */
export function opencodeConversation(
  info: Json,
  label: string,
): Parsed<Omit<ImportedConversation, "events" | "title">> {
  const problem = infoProblem(info);
  if (problem !== undefined) return interopError(`${label}: ${problem}`);
  const sessionId = info.id as string;
  const time = isRecord(info.time) ? info.time : {};
  const createdAt = agentTimestamp(time.created) ?? "1970-01-01T00:00:00.000Z";
  const origin: Json = { agent: "opencode", session_id: sessionId };
  if (typeof info.directory === "string" && info.directory !== "") origin.cwd = info.directory;
  if (typeof info.version === "string") origin.version = info.version;
  const key = `opencode:${sessionId}`;
  return {
    ok: true,
    value: sessionConversation(key, createdAt, origin),
  };
}

/** Checks the shape of an `opencode export` document; says what is wrong, naming the message. */
export function checkOpencodeDocument(value: unknown, label: string): Parsed<OpencodeDocument> {
  if (!isRecord(value)) return interopError(`${label}: an opencode session is a JSON object`);
  const problem = infoProblem(value.info);
  if (problem !== undefined) return interopError(`${label}: ${problem}`);
  if (!Array.isArray(value.messages))
    return interopError(`${label}: an opencode session needs a \`messages\` list`);
  for (const [index, message] of value.messages.entries()) {
    const where = `${label}: message ${index + 1}`;
    if (!isRecord(message) || !isRecord(message.info))
      return interopError(`${where}: needs an \`info\` object`);
    if (typeof message.info.id !== "string") return interopError(`${where}: needs a string \`info.id\``);
    if (message.info.role !== "user" && message.info.role !== "assistant") {
      return interopError(`${where}: its role must be user or assistant`);
    }
    if (!Array.isArray(message.parts)) return interopError(`${where}: needs a \`parts\` list`);
    for (const [position, part] of message.parts.entries()) {
      if (!isRecord(part) || typeof part.type !== "string") {
        return interopError(`${where}, part ${position + 1}: needs a string \`type\``);
      }
    }
  }
  return { ok: true, value: value as unknown as OpencodeDocument };
}

/** The time of a message (or part), from its `time.created` (or `time.start`), as RFC 3339. */
function timeOf(value: Json, fallback: string): string {
  const time = isRecord(value.time) ? value.time : {};
  return agentTimestamp(time.created) ?? agentTimestamp(time.start) ?? fallback;
}

/** Converts an opencode session (checked by `checkOpencodeDocument`) to events. */
export function convertOpencodeSession(document: OpencodeDocument, label: string): Parsed<SessionEnd> {
  const conversation = opencodeConversation(document.info, label);
  if (!conversation.ok) return conversation;
  const drafts = new DraftList();
  const skipped: Record<string, number> = {};
  const unknownFields: Record<string, number> = {};
  const warnings: string[] = [];
  const turnOf = new Map<string, number>();
  let model: string | undefined;
  let firstPrompt: string | undefined;
  let compactions = 0;
  let lastTs = conversation.value.createdAt;
  const revert =
    isRecord(document.info.revert) && typeof document.info.revert.messageID === "string"
      ? document.info.revert.messageID
      : undefined;
  const reverted =
    revert === undefined ? -1 : document.messages.findIndex((message) => message.info.id === revert);
  const messages = reverted >= 0 ? document.messages.slice(0, reverted) : document.messages;
  const abandonedRecords = reverted >= 0 ? document.messages.length - reverted : 0;
  /** The compaction waiting for its summary message. */
  let pending:
    | { readonly ts: string; readonly tail: string | undefined; readonly where: string; readonly id: string }
    | undefined;
  for (const [index, message] of messages.entries()) {
    const info = message.info;
    const id = info.id as string;
    const where = `${label}: message ${index + 1} (${id})`;
    const ts = timeOf(info, lastTs);
    lastTs = ts;
    if (info.role === "user") {
      const compaction = message.parts.find((part) => part.type === "compaction");
      if (compaction !== undefined) {
        pending = {
          ts,
          tail: typeof compaction.tail_start_id === "string" ? compaction.tail_start_id : undefined,
          where,
          id,
        };
        count(skipped, "compaction request");
        continue;
      }
      const texts: string[] = [];
      let synthetic = true;
      for (const part of message.parts) {
        if (part.type === "text" && typeof part.text === "string") {
          if (part.ignored === true) {
            count(skipped, "ignored text");
            continue;
          }
          texts.push(part.text);
          if (part.synthetic !== true) synthetic = false;
        } else if (part.type === "file" || part.type === "subtask") {
          warnings.push(`${where}: a ${part.type} part was left out`);
        } else if (BOOKKEEPING_PARTS.has(part.type as string)) {
          count(skipped, part.type as string);
        } else {
          count(unknownFields, `part ${String(part.type)}`);
        }
      }
      if (texts.length === 0) {
        count(skipped, "empty user message");
        continue;
      }
      const text = texts.join("\n\n");
      drafts.openTurn(ts, where);
      turnOf.set(id, drafts.turn);
      if (!synthetic) firstPrompt ??= text;
      const request: EventDraft = { type: "chat_request", ts, content: text };
      if (synthetic) setMetadata(request, OPENCODE_SYNTHETIC_KEY, true);
      const pinnedPart = message.parts.find((part) => part.type === "text" && isPinnedPart(part));
      if (pinnedPart !== undefined) markPinned(request, pinnedPart);
      drafts.add(request, where);
      continue;
    }
    // An assistant message.
    if (info.summary === true && pending !== undefined) {
      const summary = message.parts
        .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
        .join("\n\n");
      const compaction = pending;
      pending = undefined;
      const kept = compaction.tail === undefined ? undefined : turnOf.get(compaction.tail);
      const toTurn = kept === undefined ? drafts.turn : kept - 1;
      if (summary.trim() === "") {
        count(skipped, "compaction");
        warnings.push(
          `${where}: opencode's own compaction without a summary is not made an overlay (the whole history before it is kept)`,
        );
        continue;
      }
      if (toTurn < 0) {
        // Nothing before it to cover (a session that opens with one, as cxc's exports do): what
        // opencode sends, its question and the summary, is the first turn.
        drafts.openTurn(compaction.ts, compaction.where);
        const request: EventDraft = {
          type: "chat_request",
          ts: compaction.ts,
          content: OPENCODE_COMPACTION_PROMPT,
        };
        setMetadata(request, OPENCODE_SYNTHETIC_KEY, true);
        drafts.add(request, compaction.where);
        drafts.add({ type: "chat_response", ts, message: summary }, where);
        continue;
      }
      compactions += 1;
      drafts.addGlobal(
        agentCompactionDraft({
          ts,
          toTurn,
          summary,
          source: "user",
          note: "opencode's own compaction",
          origin: { agent: "opencode", record: compaction.id },
        }),
        where,
      );
      continue;
    }
    if (drafts.turn < 0) {
      count(skipped, "reply before a prompt");
      continue;
    }
    const provider = typeof info.providerID === "string" ? info.providerID : undefined;
    const modelId = typeof info.modelID === "string" ? info.modelID : undefined;
    const responses = assistantParts(message.parts, ts, skipped, unknownFields);
    if (responses.length === 0) {
      count(skipped, isRecord(info.error) ? "failed reply" : "empty reply");
      continue;
    }
    if (provider !== undefined && modelId !== undefined && `${provider}/${modelId}` !== model) {
      model = `${provider}/${modelId}`;
      drafts.addModelChange(modelDelta(model, ts), where);
    }
    for (const draft of responses) drafts.add(draft, where);
    const usage = usageOf(info.tokens);
    const last = responses.findLast((draft) => draft.type === "chat_response");
    if (usage !== undefined && last !== undefined) setMetadata(last, "usage", usage);
  }
  if (pending !== undefined) {
    count(skipped, "compaction");
    warnings.push(
      `${pending.where}: opencode's own compaction has no summary (it did not finish); it is not made an overlay`,
    );
  }
  if (drafts.turn < 0)
    return interopError(`${label}: an opencode session without a single prompt; nothing to import`);
  const titled =
    typeof document.info.title === "string" && document.info.title.trim() !== ""
      ? document.info.title.trim()
      : undefined;
  const title = titled ?? titleFromPrompt(firstPrompt);
  const summary: AgentImportSummary = {
    agent: "opencode",
    lines: document.messages.length,
    turns: drafts.turn + 1,
    compactions,
    skipped,
    unknown: {},
    unknownFields,
    ...(typeof document.info.version === "string" ? { version: document.info.version } : {}),
    sideChainRecords: 0,
    abandonedBranches: abandonedRecords > 0 ? 1 : 0,
    abandonedRecords,
  };
  return new EventFinisher(conversation.value.sourceId).end(
    drafts.drafts.splice(0),
    title,
    summary,
    warnings,
  );
}

/** An assistant message's parts as drafts: reasoning, text, tool calls and then their results. */
function assistantParts(
  parts: readonly Json[],
  ts: string,
  skipped: Record<string, number>,
  unknownFields: Record<string, number>,
): EventDraft[] {
  const drafts: EventDraft[] = [];
  const results: EventDraft[] = [];
  for (const part of parts) {
    const partTs = timeOf(part, ts);
    switch (part.type) {
      case "reasoning": {
        const text = typeof part.text === "string" ? part.text : "";
        const metadata = isRecord(part.metadata) ? part.metadata : {};
        const anthropic = isRecord(metadata.anthropic) ? metadata.anthropic : {};
        const signature =
          typeof anthropic.signature === "string" && anthropic.signature !== ""
            ? anthropic.signature
            : undefined;
        if (text === "" && signature === undefined) {
          count(skipped, "empty reasoning");
          break;
        }
        const draft: EventDraft = { type: "chat_response", ts: partTs, reasoning: text };
        if (signature !== undefined) setMetadata(draft, ANTHROPIC_SIGNATURE_KEY, signature);
        drafts.push(draft);
        break;
      }
      case "text":
        if (typeof part.text === "string" && part.text !== "" && part.ignored !== true) {
          drafts.push(markPinned({ type: "chat_response", ts: partTs, message: part.text }, part));
        }
        break;
      case "tool": {
        const state = isRecord(part.state) ? part.state : {};
        const callId =
          typeof part.callID === "string" ? part.callID : typeof part.id === "string" ? part.id : "";
        drafts.push({
          type: "tool_call_request",
          ts: partTs,
          call_id: callId,
          name: typeof part.tool === "string" ? part.tool : "",
          arguments: isRecord(state.input) ? state.input : {},
        });
        const stateTime = isRecord(state.time) ? state.time : {};
        const resultTs = agentTimestamp(stateTime.end) ?? partTs;
        if (state.status === "completed") {
          const output = typeof state.output === "string" ? state.output : JSON.stringify(state.output ?? "");
          results.push(
            markPinned(
              { type: "tool_call_response", ts: resultTs, call_id: callId, content: output, is_error: false },
              part,
            ),
          );
        } else if (state.status === "error") {
          const error =
            typeof state.error === "string" ? state.error : JSON.stringify(state.error ?? "error");
          results.push(
            markPinned(
              { type: "tool_call_response", ts: resultTs, call_id: callId, content: error, is_error: true },
              part,
            ),
          );
        }
        break;
      }
      default:
        if (BOOKKEEPING_PARTS.has(part.type as string)) count(skipped, part.type as string);
        else if (part.type === "file") {
          count(skipped, "file");
        } else count(unknownFields, `part ${String(part.type)}`);
    }
  }
  // A step's results follow its calls (opencode sends them as the next message).
  return [...drafts, ...results];
}

/** The draft, with `CXC_PINNED_KEY` when cxc's export marked its part pinned (`metadata.cxc_pinned`). */
function markPinned(draft: EventDraft, part: Json): EventDraft {
  if (isPinnedPart(part)) setMetadata(draft, CXC_PINNED_KEY, true);
  return draft;
}

/** Whether cxc's export marked the part pinned. */
function isPinnedPart(part: Json): boolean {
  return isRecord(part.metadata) && part.metadata[CXC_PINNED_KEY] === true;
}

/** opencode's `tokens` (`input` without the cache; `reasoning` apart) as stored usage. */
function usageOf(tokens: unknown): Record<string, number> | undefined {
  if (!isRecord(tokens) || typeof tokens.input !== "number" || typeof tokens.output !== "number")
    return undefined;
  const number = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  return toStoredUsage({
    inputTokens: number(tokens.input),
    outputTokens: number(tokens.output) + number(tokens.reasoning),
    cacheReadTokens: number(cache.read),
    cacheWriteTokens: number(cache.write),
  });
}
