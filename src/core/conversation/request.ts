/**
 * From a projected view to a provider-neutral request. Pure.
 *
 * The input is the list of turns after projection (compaction overlays already applied). This
 * module keeps only what a provider sees (user requests, assistant messages, reasoning and
 * structured data, tool calls and their results), and repairs the shape every provider insists on:
 *
 * - strict user/assistant alternation: adjacent content of the same role is merged into one
 *   message (a tool result and the next user text share a user message, parallel tool calls share
 *   an assistant message);
 * - every tool call is answered: a call without a result gets a synthetic error result, a result
 *   without its call is dropped (Anthropic rejects both);
 * - reasoning keeps its provider signature when it has one (only then can Anthropic take it back
 *   as thinking); adapters send reasoning they cannot replay natively as text wrapped in
 *   `<think>` tags, as jp does (Google sends it as a thought); an OpenAI reasoning item becomes
 *   its own part, which the adapters replay natively only to the model that wrote it;
 * - a Gemini thought signature rides on the part it came with (`thoughtSignature`), for the
 *   Google adapter to give back.
 *
 * Adapters in `src/llm` turn an `LlmRequest` into their wire format; nothing here knows a provider
 * beyond the names of the metadata keys that carry replayable reasoning.
 */
import type { NativeSummary, TurnEvent } from "./events.js";
import type { ProjectedTurn } from "./projection.js";
import {
  ANTHROPIC_REDACTED_KEY,
  ANTHROPIC_SIGNATURE_KEY,
  GOOGLE_THOUGHT_SIGNATURE_KEY,
  INTERRUPTED_TOOL_RESULT,
  NATIVE_SUMMARY_ADDITION_KEY,
  NATIVE_SUMMARY_HELD_KEY,
  NATIVE_SUMMARY_KEY,
  NATIVE_SUMMARY_OPENER_KEY,
  OPENAI_ENCRYPTED_REASONING_KEY,
  OPENAI_REASONING_ID_KEY,
  OPENAI_REASONING_MODEL_KEY,
} from "../provider-keys.js";

export type { ProjectedTurn } from "./projection.js";

export {
  ANTHROPIC_REDACTED_KEY,
  ANTHROPIC_SIGNATURE_KEY,
  GOOGLE_THOUGHT_SIGNATURE_KEY,
  INTERRUPTED_TOOL_RESULT,
  OPENAI_ENCRYPTED_REASONING_KEY,
  OPENAI_REASONING_ID_KEY,
  OPENAI_REASONING_MODEL_KEY,
} from "../provider-keys.js";

/**
 * A piece of message content. `nativeHeld` marks one of a turn a provider's own summary was made
 * inside, which that summary stands for (its items hold the turn's prompt and its steps so far:
 * OpenAI's encrypted compaction in the middle of a Codex turn); the adapter replaying the summary
 * natively leaves it out, every other sends it.
 */
export type LlmPart = LlmContent & { readonly nativeHeld?: true };

/** The kinds of message content. */
type LlmContent =
  /**
   * Plain text (user requests, assistant messages, structured data as JSON). A provider's own
   * summary is text too, its full message as every other model gets it, with the native summary
   * (`native`) and what cxc adds after it (`nativeAddition`: the facts and pinned messages) for
   * the adapter of that provider to replay it natively; `nativeOpener` marks the
   * `[Summary of previous conversation]` request such an adapter then leaves out.
   */
  | {
      readonly type: "text";
      readonly text: string;
      readonly thoughtSignature?: string;
      readonly native?: NativeSummary;
      readonly nativeAddition?: string;
      readonly nativeOpener?: true;
    }
  /**
   * Reasoning. `signature` is Anthropic's (only signed reasoning can go back to Anthropic as
   * thinking); without one, adapters send it as `<think>` text (Google: as a thought).
   */
  | {
      readonly type: "reasoning";
      readonly text: string;
      readonly signature?: string;
      readonly thoughtSignature?: string;
    }
  /** Reasoning the provider returned encrypted; replayed opaque, never shown. */
  | { readonly type: "redacted-reasoning"; readonly data: string }
  /**
   * An OpenAI Responses reasoning item: its summary `text`, item `id` and `encrypted_content`
   * (`data`), and the model id that wrote it when known. Only a Responses adapter talking to that
   * model replays it as an item; every other adapter sends the text as `<think>` text.
   */
  | {
      readonly type: "encrypted-reasoning";
      readonly text: string;
      readonly id: string;
      readonly data: string;
      readonly model?: string;
    }
  /** The assistant asks for a tool. `arguments` is the parsed JSON object. */
  | {
      readonly type: "tool-call";
      readonly id: string;
      readonly name: string;
      readonly arguments: Readonly<Record<string, unknown>>;
      readonly thoughtSignature?: string;
    }
  /** The result of a tool call. `toolName` is the name of the call it answers. */
  | {
      readonly type: "tool-result";
      readonly callId: string;
      readonly toolName: string;
      readonly content: string;
      readonly isError: boolean;
    };

/** One message. User messages hold text and tool results; assistant messages the rest. */
export interface LlmMessage {
  readonly role: "user" | "assistant";
  readonly parts: readonly LlmPart[];
}

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** Whether and which tool the model must call. */
export type ToolChoice =
  | { readonly type: "auto" }
  | { readonly type: "none" }
  | { readonly type: "required" }
  | { readonly type: "tool"; readonly name: string };

/** A provider-neutral request. Messages strictly alternate, starting with whatever came first. */
export interface LlmRequest {
  readonly system?: string;
  readonly messages: readonly LlmMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly maxOutputTokens?: number;
}

/** Everything of the request that does not come from the conversation's events. */
export interface RequestOptions {
  readonly system?: string;
  readonly tools?: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly maxOutputTokens?: number;
  /**
   * The recall index (recall.ts): one user text part just before the event `beforeEventId`, so in
   * the user message that follows the hidden range, or, when that event is a tool result, after
   * the run of results it opens (providers take the results first in their message); at the end,
   * as a user message of its own, when no such event is among the turns.
   */
  readonly recallIndex?: { readonly beforeEventId?: string; readonly text: string };
}

type Role = LlmMessage["role"];
interface RolePart {
  readonly role: Role;
  readonly part: LlmPart;
}

/**
 * Builds the request for a list of turns. Only `events` is read, so raw turns from `groupTurns`
 * can be passed as well (the summarizer does this).
 */
export function buildLlmRequest(
  turns: readonly Pick<ProjectedTurn, "events">[],
  options: RequestOptions = {},
): LlmRequest {
  const events = turns.flatMap((turn) => turn.events);
  const index = options.recallIndex;
  const indexParts: RolePart[] =
    index === undefined ? [] : [{ role: "user", part: { type: "text", text: index.text } }];
  // Before a user message; after a run of tool results (a provider takes the results first in
  // their message, text after them).
  let placed = false;
  let afterResults = false;
  const roleParts = events.flatMap((event) => {
    if (index === undefined || placed) return toRoleParts(event);
    if (afterResults && event.type !== "tool_call_response") {
      placed = true;
      return [...indexParts, ...toRoleParts(event)];
    }
    if (event.id !== index.beforeEventId) return toRoleParts(event);
    if (event.type === "tool_call_response") {
      afterResults = true;
      return toRoleParts(event);
    }
    placed = true;
    return [...indexParts, ...toRoleParts(event)];
  });
  const parts = pairToolCalls(placed ? roleParts : [...roleParts, ...indexParts]);
  const request: { -readonly [K in keyof LlmRequest]: LlmRequest[K] } = {
    messages: mergeByRole(parts),
    tools: options.tools ?? [],
  };
  if (options.system !== undefined && options.system.length > 0) request.system = options.system;
  if (options.toolChoice !== undefined) request.toolChoice = options.toolChoice;
  if (options.maxOutputTokens !== undefined) request.maxOutputTokens = options.maxOutputTokens;
  return request;
}

/**
 * Renders reasoning as text the way jp does for reasoning that cannot be replayed natively (the
 * adapters call it for unsigned reasoning).
 */
export function renderReasoningAsText(text: string): string {
  return `<think>\n${text}\n</think>\n\n`;
}

/**
 * The provider-visible content of one event; empty for events a provider never sees. The parts of
 * an event a native summary stands for are marked `nativeHeld`.
 */
function toRoleParts(event: TurnEvent): RolePart[] {
  const parts = eventParts(event);
  if (event.metadata?.[NATIVE_SUMMARY_HELD_KEY] !== true) return parts;
  return parts.map(({ role, part }) => ({ role, part: { ...part, nativeHeld: true } }));
}

function eventParts(event: TurnEvent): RolePart[] {
  switch (event.type) {
    case "chat_request":
      if (event.content.length === 0) return [];
      return [
        {
          role: "user",
          part:
            event.metadata?.[NATIVE_SUMMARY_OPENER_KEY] === true
              ? { type: "text", text: event.content, nativeOpener: true }
              : { type: "text", text: event.content },
        },
      ];
    case "chat_response":
      return responseParts(event.message, event.reasoning, event.data, event.metadata);
    case "tool_call_request": {
      const thoughtSignature = googleSignatureOf(event.metadata);
      return [
        {
          role: "assistant",
          part: {
            type: "tool-call",
            id: event.call_id,
            name: event.name,
            arguments: event.arguments,
            ...(thoughtSignature === undefined ? {} : { thoughtSignature }),
          },
        },
      ];
    }
    case "tool_call_response":
      return [
        {
          role: "user",
          part: {
            type: "tool-result",
            callId: event.call_id,
            toolName: "",
            content: event.content,
            isError: event.is_error,
          },
        },
      ];
    default:
      return [];
  }
}

function responseParts(
  message: string | undefined,
  reasoning: string | undefined,
  data: unknown,
  metadata: Readonly<Record<string, unknown>> | undefined,
): RolePart[] {
  const thoughtSignature = googleSignatureOf(metadata);
  const google = thoughtSignature === undefined ? {} : { thoughtSignature };
  if (message !== undefined) {
    if (message.length === 0) return [];
    const native = metadata?.[NATIVE_SUMMARY_KEY] as NativeSummary | undefined;
    if (native !== undefined) {
      const addition = metadata?.[NATIVE_SUMMARY_ADDITION_KEY];
      const nativeAddition = typeof addition === "string" ? addition : "";
      return [{ role: "assistant", part: { type: "text", text: message, native, nativeAddition } }];
    }
    return [{ role: "assistant", part: { type: "text", text: message, ...google } }];
  }
  if (reasoning !== undefined) {
    const redacted = metadata?.[ANTHROPIC_REDACTED_KEY];
    if (typeof redacted === "string" && redacted.length > 0) {
      return [{ role: "assistant", part: { type: "redacted-reasoning", data: redacted } }];
    }
    const signature = metadata?.[ANTHROPIC_SIGNATURE_KEY];
    if (typeof signature === "string" && signature.length > 0) {
      return [{ role: "assistant", part: { type: "reasoning", text: reasoning, signature, ...google } }];
    }
    const encrypted = metadata?.[OPENAI_ENCRYPTED_REASONING_KEY];
    const itemId = metadata?.[OPENAI_REASONING_ID_KEY];
    if (typeof encrypted === "string" && encrypted.length > 0 && typeof itemId === "string") {
      const model = metadata?.[OPENAI_REASONING_MODEL_KEY];
      const part: LlmPart = {
        type: "encrypted-reasoning",
        text: reasoning,
        id: itemId,
        data: encrypted,
        ...(typeof model === "string" ? { model } : {}),
      };
      return [{ role: "assistant", part }];
    }
    if (reasoning.length === 0) return [];
    return [{ role: "assistant", part: { type: "reasoning", text: reasoning, ...google } }];
  }
  if (data === undefined) return [];
  return [{ role: "assistant", part: { type: "text", text: JSON.stringify(data) } }];
}

/** A Gemini thought signature stored on an event, if any. */
function googleSignatureOf(metadata: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const signature = metadata?.[GOOGLE_THOUGHT_SIGNATURE_KEY];
  return typeof signature === "string" && signature.length > 0 ? signature : undefined;
}

/**
 * Pairs tool calls with results. A result must sit in the user content that directly follows
 * the assistant content holding its call; anything else is an orphan (dropped), and a call left
 * without a result when the user side ends gets the synthetic interrupted result there.
 */
function pairToolCalls(parts: readonly RolePart[]): RolePart[] {
  const output: RolePart[] = [];
  const pending = new Map<string, string>();
  let previousRole: Role | undefined;
  for (let position = 0; position < parts.length; position++) {
    const current = parts[position]!;
    if (current.role === "assistant" && previousRole === "user") answerPending(pending, output);
    if (current.part.type === "tool-call") {
      // A repeated id would make the pairing ambiguous; the first call keeps it.
      if (!pending.has(current.part.id)) pending.set(current.part.id, current.part.name);
      output.push(current);
    } else if (current.part.type === "tool-result") {
      const toolName = pending.get(current.part.callId);
      if (toolName === undefined) continue;
      pending.delete(current.part.callId);
      output.push({ role: "user", part: { ...current.part, toolName } });
    } else {
      output.push(current);
    }
    previousRole = current.role;
  }
  answerPending(pending, output);
  return output;
}

function answerPending(pending: Map<string, string>, output: RolePart[]): void {
  for (const [callId, toolName] of pending) {
    output.push({
      role: "user",
      part: { type: "tool-result", callId, toolName, content: INTERRUPTED_TOOL_RESULT, isError: true },
    });
  }
  pending.clear();
}

/**
 * Merges consecutive parts of one role into a message. In a user message the tool results go
 * first: Anthropic requires results to lead the message that answers the calls.
 */
function mergeByRole(parts: readonly RolePart[]): LlmMessage[] {
  const messages: { role: Role; parts: LlmPart[] }[] = [];
  for (const { role, part } of parts) {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.parts.push(part);
    else messages.push({ role, parts: [part] });
  }
  return messages.map((message) =>
    message.role === "user"
      ? {
          role: message.role,
          parts: [
            ...message.parts.filter((part) => part.type === "tool-result"),
            ...message.parts.filter((part) => part.type !== "tool-result"),
          ],
        }
      : message,
  );
}
