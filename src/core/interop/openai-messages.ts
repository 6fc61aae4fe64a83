/**
 * Conversion between OpenAI Chat Completions messages and cxc events. Pure.
 *
 * Import takes a request body (`{ model, messages, … }`) or a bare messages array:
 * - `system`/`developer` messages become `config_delta` events setting `assistant.system_prompt`
 *   (where they stand), so export can put them back;
 * - a `user` message opens a turn (`turn_start`, `chat_request`);
 * - an `assistant` message gives `chat_response` events (its `reasoning_content`, then its text)
 *   and a `tool_call_request` per tool call;
 * - a `tool` message gives a `tool_call_response`.
 *
 * Export writes the raw events (no projection) as a request body: tool calls are paired (a call
 * without a result gets a synthetic error result, a result without its call is dropped), reasoning
 * and everything the API has no place for (inquiries, compactions, unknown kinds) are left out.
 * Forms the import had to normalize (content part arrays, argument strings that are not canonical
 * JSON) are kept in metadata so a round trip gives the same messages.
 */
import type { ConversationEvent, ToolCallRequest, ToolCallResponse } from "../conversation/events.js";
import { INTERRUPTED_TOOL_RESULT } from "../provider-keys.js";
import { validateEvent } from "./jp.js";
import type { Parsed } from "../parsed.js";

/** Where new events get their ids and timestamps (the shell passes a clock and an id source). */
export interface NewEventSource {
  readonly newId: () => string;
  readonly now: () => string;
}

/** Metadata key holding a non-string `content` exactly as the request had it. */
export const OPENAI_CONTENT_KEY = "openai_content";
/** Metadata key holding tool-call arguments text that is not `JSON.stringify` of its value. */
export const OPENAI_ARGUMENTS_KEY = "openai_arguments";
/** Metadata key marking a system prompt that came from a `developer` message. */
export const OPENAI_ROLE_KEY = "openai_role";
export { INTERRUPTED_TOOL_RESULT } from "../provider-keys.js";

type Json = Record<string, unknown>;

/** The messages of a request body or bare array, or an error naming what is wrong. */
export function extractMessages(value: unknown): Parsed<readonly unknown[]> {
  if (Array.isArray(value)) return { ok: true, value };
  if (isRecord(value) && Array.isArray(value.messages)) return { ok: true, value: value.messages };
  return { ok: false, message: "expected a messages array or a request body with `messages`" };
}

/** Converts OpenAI messages into validated cxc events. */
export function importOpenAiMessages(value: unknown, source: NewEventSource): Parsed<ConversationEvent[]> {
  const messages = extractMessages(value);
  if (!messages.ok) return messages;
  const events: ConversationEvent[] = [];
  for (const [index, message] of messages.value.entries()) {
    const where = `message ${index + 1}`;
    if (!isRecord(message)) return fail(`${where}: must be an object`);
    const role = fieldProblem(message, "role", "string", "message");
    if (role !== undefined) return fail(`${where}: ${role}`);
    const drafts = importMessage(message, where);
    if (!drafts.ok) return drafts;
    for (const draft of drafts.value) {
      const checked = validateEvent({ id: source.newId(), ts: source.now(), ...draft }, where);
      if (!checked.ok) return checked;
      events.push(checked.value);
    }
  }
  return { ok: true, value: events };
}

function importMessage(message: Json, where: string): Parsed<Json[]> {
  if (message.content === undefined && message.role !== "assistant" && typeof message.role === "string") {
    return fail(`${where}: ${message.role} message has no "content"`);
  }
  const problem = contentProblem(message.content);
  if (problem !== undefined) return fail(`${where}: ${problem}`);
  switch (message.role) {
    case "system":
    case "developer": {
      const text = contentText(message.content);
      if (text === undefined) return fail(`${where}: \`content\` must be a string or text parts`);
      const metadata: Json = keepContent(message.content);
      if (message.role === "developer") metadata[OPENAI_ROLE_KEY] = "developer";
      return done([systemPromptEvent(text, metadata)]);
    }
    case "user": {
      const text = contentText(message.content);
      if (text === undefined) return fail(`${where}: \`content\` must be a string or text parts`);
      return done([
        { type: "turn_start" },
        withMetadata({ type: "chat_request", content: text }, keepContent(message.content)),
      ]);
    }
    case "assistant":
      return importAssistant(message, where);
    case "tool": {
      const text = contentText(message.content);
      const id = fieldProblem(message, "tool_call_id", "string", "tool message");
      if (id !== undefined) return fail(`${where}: ${id}`);
      if (text === undefined) return fail(`${where}: \`content\` must be a string or text parts`);
      const response = {
        type: "tool_call_response",
        call_id: message.tool_call_id,
        content: text,
        is_error: false,
      };
      return done([withMetadata(response, keepContent(message.content))]);
    }
    default:
      return fail(`${where}: unsupported role '${String(message.role)}'`);
  }
}

function importAssistant(message: Json, where: string): Parsed<Json[]> {
  const drafts: Json[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") drafts.push({ type: "chat_response", reasoning });
  if (message.content !== null && message.content !== undefined) {
    const text = contentText(message.content);
    if (text === undefined) return fail(`${where}: \`content\` must be a string, null or text parts`);
    drafts.push(withMetadata({ type: "chat_response", message: text }, keepContent(message.content)));
  }
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) return fail(`${where}: \`tool_calls\` must be an array`);
  for (const [index, call] of calls.entries()) {
    const request = importToolCall(call);
    if (!request.ok) return fail(`${where}, tool call ${index + 1}: ${request.message}`);
    drafts.push(request.value);
  }
  return done(drafts);
}

function importToolCall(call: unknown): Parsed<Json> {
  if (!isRecord(call)) return fail("must be an object");
  const problem =
    fieldProblem(call, "id", "string", "tool call") ??
    fieldProblem(call, "function", "object", "tool call") ??
    fieldProblem(call, "function.name", "string", "tool call");
  if (problem !== undefined) return fail(problem);
  const { name, arguments: text } = call.function as Json;
  const argumentsText = typeof text === "string" ? text : "{}";
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    parsed = undefined;
  }
  const argumentsValue = isRecord(parsed) ? parsed : {};
  const request: Json = { type: "tool_call_request", call_id: call.id, name, arguments: argumentsValue };
  // Models sometimes send arguments that are not a JSON object, or not canonically spaced; keep the
  // text so it is sent back exactly as the model wrote it.
  if (JSON.stringify(argumentsValue) !== argumentsText)
    request.metadata = { [OPENAI_ARGUMENTS_KEY]: argumentsText };
  return done(request);
}

/** A `config_delta` setting the system prompt (shared with the Anthropic importer). */
export function systemPromptEvent(text: string, metadata: Json = {}): Json {
  return withMetadata({ type: "config_delta", delta: { assistant: { system_prompt: text } } }, metadata);
}

/** The system prompt a `config_delta` sets, if it sets one. */
export function systemPromptOf(event: ConversationEvent): string | undefined {
  if (event.type !== "config_delta") return undefined;
  const assistant = event.delta.assistant;
  return isRecord(assistant) && typeof assistant.system_prompt === "string"
    ? assistant.system_prompt
    : undefined;
}

// ---------------------------------------------------------------------------------------------
// Export

/** Options for export: the model to name in the body, when wanted. */
export interface ExportRequestOptions {
  readonly model?: string;
}

/** A Chat Completions request body holding the conversation's raw events. */
export function exportOpenAiMessages(
  events: readonly ConversationEvent[],
  options: ExportRequestOptions = {},
): Json {
  const messages: Json[] = [];
  let assistant: Json | undefined;
  const closeAssistant = () => {
    if (assistant) messages.push(assistant);
    assistant = undefined;
  };
  for (const event of pairToolCalls(events)) {
    const system = systemPromptOf(event);
    if (system !== undefined) {
      closeAssistant();
      const role = metadataOf(event)[OPENAI_ROLE_KEY] === "developer" ? "developer" : "system";
      messages.push({ role, content: contentOf(event, system) });
    } else if (event.type === "chat_request") {
      closeAssistant();
      messages.push({ role: "user", content: contentOf(event, event.content) });
    } else if (event.type === "tool_call_response") {
      closeAssistant();
      messages.push({ role: "tool", tool_call_id: event.call_id, content: contentOf(event, event.content) });
    } else if (event.type === "chat_response" && event.reasoning === undefined) {
      const text = event.message ?? JSON.stringify(event.data);
      // A second text, or text after tool calls, was a separate message.
      if (assistant && (assistant.content !== null || assistant.tool_calls)) closeAssistant();
      assistant = { role: "assistant", content: contentOf(event, text) };
    } else if (event.type === "tool_call_request") {
      assistant ??= { role: "assistant", content: null };
      const calls = (assistant.tool_calls as Json[] | undefined) ?? [];
      assistant.tool_calls = [...calls, exportToolCall(event)];
    }
  }
  closeAssistant();
  return { ...(options.model ? { model: options.model } : {}), messages };
}

function exportToolCall(event: ToolCallRequest): Json {
  const kept = event.metadata?.[OPENAI_ARGUMENTS_KEY];
  const text = typeof kept === "string" ? kept : JSON.stringify(event.arguments);
  return { id: event.call_id, type: "function", function: { name: event.name, arguments: text } };
}

/**
 * The turn events a request can carry, with tool calls paired: every call is followed (after the
 * other calls of its batch) by a result, a synthetic error result when it was never answered; a
 * result whose call is missing is dropped. System-prompt deltas are kept in place.
 */
export function pairToolCalls(events: readonly ConversationEvent[]): ConversationEvent[] {
  const requested = new Set<string>();
  const answered = new Set<string>();
  for (const event of events) {
    if (event.type === "tool_call_request") requested.add(event.call_id);
    if (event.type === "tool_call_response") answered.add(event.call_id);
  }
  const result: ConversationEvent[] = [];
  let pending: ToolCallRequest[] = [];
  const flushPending = () => {
    for (const request of pending)
      if (!answered.has(request.call_id)) result.push(interruptedResponse(request));
    pending = [];
  };
  for (const event of events) {
    if (event.type === "tool_call_request") {
      pending.push(event);
      result.push(event);
    } else if (event.type === "tool_call_response") {
      if (requested.has(event.call_id)) result.push(event);
    } else if (
      event.type === "chat_request" ||
      event.type === "chat_response" ||
      systemPromptOf(event) !== undefined
    ) {
      flushPending();
      result.push(event);
    }
  }
  flushPending();
  return result;
}

function interruptedResponse(request: ToolCallRequest): ToolCallResponse {
  return {
    id: `${request.id}-interrupted`,
    ts: request.ts,
    type: "tool_call_response",
    call_id: request.call_id,
    content: INTERRUPTED_TOOL_RESULT,
    is_error: true,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * What is wrong with a part array, or undefined (also for anything that is not an array): every
 * part needs a string `type`, and a text part a string `text`, so nothing is dropped unseen.
 */
export function contentProblem(content: unknown, noun = "content part"): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const [index, part] of content.entries()) {
    const where = `${noun} ${index + 1}`;
    if (!isRecord(part)) return `${where} must be an object`;
    const problem =
      fieldProblem(part, "type", "string", where) ??
      (part.type === "text" ? fieldProblem(part, "text", "string", where) : undefined);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * What is wrong with the field `name` of `record`, named as the input names it (`tool_use has no
 * "id"`, `tool_use "input" must be an object`); undefined when it is there with the right type.
 * `what` is what the record is in the input (`tool_use`, `tool call`, `tool message`).
 */
export function fieldProblem(
  record: Json,
  name: string,
  type: "string" | "object",
  what: string,
): string | undefined {
  const value = name
    .split(".")
    .reduce<unknown>((inner, key) => (isRecord(inner) ? inner[key] : undefined), record);
  if (value === undefined || value === null) return `${what} has no "${name}"`;
  const right = type === "string" ? typeof value === "string" : isRecord(value);
  return right ? undefined : `${what} "${name}" must be ${type === "string" ? "a string" : "an object"}`;
}

/**
 * The text of a string, or of the text parts of a part array (other parts, such as images, have no
 * place in an event's text; the whole array is kept in metadata). Undefined for other shapes.
 */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part) =>
    isRecord(part) && typeof part.text === "string" ? [part.text] : [],
  );
  return texts.join("\n");
}

function keepContent(content: unknown): Json {
  return typeof content === "string" ? {} : { [OPENAI_CONTENT_KEY]: content };
}

/** The original content when the import kept it and it still says the same, else the text. */
function contentOf(event: ConversationEvent, text: string): unknown {
  const kept = metadataOf(event)[OPENAI_CONTENT_KEY];
  return kept !== undefined && contentText(kept) === text ? kept : text;
}

/** The metadata bag of any event (empty for unknown kinds and events without one). */
export function metadataOf(event: ConversationEvent): Readonly<Json> {
  return (event.type === "unknown" ? undefined : event.metadata) ?? {};
}

function withMetadata(draft: Json, metadata: Json): Json {
  return Object.keys(metadata).length > 0 ? { ...draft, metadata } : draft;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

function done<T>(value: T): Parsed<T> {
  return { ok: true, value };
}
