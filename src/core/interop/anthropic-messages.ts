/**
 * Conversion between Anthropic Messages request bodies and cxc events. Pure.
 *
 * Import takes a request body (`{ system, messages, … }`) or a bare messages array:
 * - `system` (a string or text blocks) becomes a `config_delta` setting `assistant.system_prompt`;
 * - a user message without `tool_result` blocks opens a turn (`turn_start`); its text blocks become
 *   `chat_request` events, its `tool_result` blocks `tool_call_response` events;
 * - an assistant message's `thinking` blocks become reasoning `chat_response` events with the
 *   signature in metadata (`anthropic_thinking_signature`, jp's key), `redacted_thinking` keeps its
 *   payload in metadata, `text` becomes a message, `tool_use` a `tool_call_request`.
 *
 * Export writes the raw events (no projection) in canonical form: adjacent events of one role are
 * merged into one message, tool calls are paired (see `pairToolCalls`), a user message that is a
 * single text is a plain string, tool results come first in their message, and reasoning is sent as
 * thinking blocks only when it carries a signature (unsigned reasoning cannot be replayed and is left
 * out). Blocks the event model has no place for (images, documents, server tools) are reported.
 */
import type { ConversationEvent } from "../conversation/events.js";
import { ANTHROPIC_REDACTED_KEY, ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";
import { validateEvent } from "./jp.js";
import {
  contentProblem,
  contentText,
  type ExportRequestOptions,
  fieldProblem,
  metadataOf,
  type NewEventSource,
  pairToolCalls,
  systemPromptEvent,
  systemPromptOf,
} from "./openai-messages.js";
import type { Parsed } from "../parsed.js";

export { ANTHROPIC_REDACTED_KEY, ANTHROPIC_SIGNATURE_KEY } from "../provider-keys.js";

type Json = Record<string, unknown>;

/** Events converted from Anthropic messages, with notes on content that had to be left out. */
export interface AnthropicImport {
  readonly events: ConversationEvent[];
  readonly warnings: string[];
}

/** Converts an Anthropic request body or messages array into validated cxc events. */
export function importAnthropicMessages(value: unknown, source: NewEventSource): Parsed<AnthropicImport> {
  const body: Json = Array.isArray(value) ? { messages: value } : isRecord(value) ? value : {};
  if (!Array.isArray(body.messages)) {
    return fail("expected a messages array or a request body with `messages`");
  }
  const drafts: { draft: Json; where: string }[] = [];
  const warnings: string[] = [];
  if (body.system !== undefined) {
    const problem = contentProblem(body.system, "system block");
    if (problem !== undefined) return fail(problem);
    const text = contentText(body.system);
    if (text === undefined) return fail("`system` must be a string or text blocks");
    drafts.push({ draft: systemPromptEvent(text), where: "system" });
  }
  for (const [index, message] of body.messages.entries()) {
    const where = `message ${index + 1}`;
    if (!isRecord(message)) return fail(`${where}: must be an object`);
    const converted =
      message.role === "user"
        ? importUserMessage(message.content, where, warnings)
        : message.role === "assistant"
          ? importAssistantMessage(message.content, where, warnings)
          : fail(`${where}: unsupported role '${String(message.role)}'`);
    if (!converted.ok) return converted;
    for (const draft of converted.value) drafts.push({ draft, where });
  }
  const events: ConversationEvent[] = [];
  for (const { draft, where } of drafts) {
    const checked = validateEvent({ id: source.newId(), ts: source.now(), ...draft }, where);
    if (!checked.ok) return checked;
    events.push(checked.value);
  }
  return { ok: true, value: { events, warnings } };
}

function blocksOf(content: unknown, where: string): Parsed<Json[]> {
  if (typeof content === "string") return { ok: true, value: [{ type: "text", text: content }] };
  if (!Array.isArray(content) || !content.every(isRecord)) {
    return fail(`${where}: \`content\` must be a string or an array of blocks`);
  }
  const problem = contentProblem(content, "block");
  return problem === undefined ? { ok: true, value: content } : fail(`${where}, ${problem}`);
}

/**
 * What is wrong with the fields a block of a known type needs (its own names: `tool_use has no
 * "id"`); undefined when they are there. Other block types are left out with a warning.
 */
function blockProblem(block: Json): string | undefined {
  const type = String(block.type);
  switch (block.type) {
    case "thinking":
      return fieldProblem(block, "thinking", "string", type);
    case "redacted_thinking":
      return fieldProblem(block, "data", "string", type);
    case "tool_use":
      return (
        fieldProblem(block, "id", "string", type) ??
        fieldProblem(block, "name", "string", type) ??
        (block.input === undefined ? undefined : fieldProblem(block, "input", "object", type))
      );
    case "tool_result":
      return fieldProblem(block, "tool_use_id", "string", type);
    default:
      return undefined;
  }
}

/**
 * The drafts of one message's blocks: each block checked (`blockProblem`), then made by `draft`,
 * which gives its draft, a problem, or undefined for a kind the message's role does not take (left
 * out with a warning). Problems and warnings name the block.
 */
function blockDrafts(
  blocks: readonly Json[],
  where: string,
  warnings: string[],
  draft: (block: Json) => Json | string | undefined,
): Parsed<Json[]> {
  const drafts: Json[] = [];
  for (const [index, block] of blocks.entries()) {
    const at = `${where}, block ${index + 1}`;
    const problem = blockProblem(block);
    if (problem !== undefined) return fail(`${at}: ${problem}`);
    const made = draft(block);
    if (typeof made === "string") return fail(`${at}: ${made}`);
    if (made === undefined) warnings.push(`${at}: a ${String(block.type)} block was left out`);
    else drafts.push(made);
  }
  return { ok: true, value: drafts };
}

function importUserMessage(content: unknown, where: string, warnings: string[]): Parsed<Json[]> {
  const blocks = blocksOf(content, where);
  if (!blocks.ok) return blocks;
  const drafts = blockDrafts(blocks.value, where, warnings, (block) => {
    if (block.type === "text") return { type: "chat_request", content: block.text };
    if (block.type !== "tool_result") return undefined;
    const problem = contentProblem(block.content, "content block");
    if (problem !== undefined) return problem;
    const text = contentText(block.content ?? "");
    if (text === undefined) return 'tool_result "content" must be text';
    return {
      type: "tool_call_response",
      call_id: block.tool_use_id,
      content: text,
      is_error: block.is_error === true,
    };
  });
  const continuesTurn = blocks.value.some((block) => block.type === "tool_result");
  return !drafts.ok || continuesTurn
    ? drafts
    : { ok: true, value: [{ type: "turn_start" }, ...drafts.value] };
}

function importAssistantMessage(content: unknown, where: string, warnings: string[]): Parsed<Json[]> {
  const blocks = blocksOf(content, where);
  if (!blocks.ok) return blocks;
  return blockDrafts(blocks.value, where, warnings, (block) => {
    switch (block.type) {
      case "text":
        return { type: "chat_response", message: block.text };
      case "thinking":
        return {
          type: "chat_response",
          reasoning: block.thinking,
          ...(typeof block.signature === "string"
            ? { metadata: { [ANTHROPIC_SIGNATURE_KEY]: block.signature } }
            : {}),
        };
      case "redacted_thinking":
        return { type: "chat_response", reasoning: "", metadata: { [ANTHROPIC_REDACTED_KEY]: block.data } };
      case "tool_use":
        return {
          type: "tool_call_request",
          call_id: block.id,
          name: block.name,
          arguments: block.input ?? {},
        };
      default:
        return undefined;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Export

/** An Anthropic Messages request body holding the conversation's raw events. */
export function exportAnthropicMessages(
  events: readonly ConversationEvent[],
  options: ExportRequestOptions = {},
): Json {
  let system: string | undefined;
  const messages: { role: "user" | "assistant"; blocks: Json[] }[] = [];
  const add = (role: "user" | "assistant", block: Json) => {
    const last = messages.at(-1);
    if (last && last.role === role) last.blocks.push(block);
    else messages.push({ role, blocks: [block] });
  };
  for (const event of pairToolCalls(events)) {
    const prompt = systemPromptOf(event);
    if (prompt !== undefined) system = prompt;
    else if (event.type === "chat_request") add("user", { type: "text", text: event.content });
    else if (event.type === "tool_call_response") add("user", toolResultBlock(event));
    else if (event.type === "tool_call_request") {
      add("assistant", { type: "tool_use", id: event.call_id, name: event.name, input: event.arguments });
    } else if (event.type === "chat_response") {
      const block = assistantBlock(event);
      if (block) add("assistant", block);
    }
  }
  return {
    ...(options.model ? { model: options.model } : {}),
    ...(system === undefined ? {} : { system }),
    messages: messages.map(({ role, blocks }) => ({ role, content: canonicalContent(role, blocks) })),
  };
}

function toolResultBlock(event: { call_id: string; content: string; is_error: boolean }): Json {
  return {
    type: "tool_result",
    tool_use_id: event.call_id,
    content: event.content,
    ...(event.is_error ? { is_error: true } : {}),
  };
}

/** An assistant text or reasoning event as an Anthropic content block; undefined when it has none. */
export function assistantBlock(event: ConversationEvent & { type: "chat_response" }): Json | undefined {
  const metadata = metadataOf(event);
  if (event.reasoning !== undefined) {
    const redacted = metadata[ANTHROPIC_REDACTED_KEY];
    if (typeof redacted === "string") return { type: "redacted_thinking", data: redacted };
    const signature = metadata[ANTHROPIC_SIGNATURE_KEY];
    return typeof signature === "string"
      ? { type: "thinking", thinking: event.reasoning, signature }
      : undefined;
  }
  const text = event.message ?? JSON.stringify(event.data);
  // The API refuses empty text blocks.
  return text === "" ? undefined : { type: "text", text };
}

/** Tool results first in a user message; a user message that is one text block is a plain string. */
function canonicalContent(role: "user" | "assistant", blocks: Json[]): unknown {
  if (role === "assistant") return blocks;
  const ordered = [
    ...blocks.filter((block) => block.type === "tool_result"),
    ...blocks.filter((block) => block.type !== "tool_result"),
  ];
  return ordered.length === 1 && ordered[0]!.type === "text" ? ordered[0]!.text : ordered;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}
