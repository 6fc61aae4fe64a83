/**
 * Folds a model's response stream into the events cxc stores. Pure.
 *
 * The shell feeds every stream event to `foldStreamEvent` and appends the drafts it gets back as
 * soon as they arrive, so what is on disk is always the blocks completed so far (jp's "store at
 * flush"). A block completes when the stream moves on to something else:
 *
 * - a text block ends at the first event that is not a text delta (usage reports excepted);
 * - a reasoning block ends when its signature arrives (Anthropic sends it last) or at the first
 *   event that is not a reasoning delta;
 * - tool calls and redacted reasoning arrive complete and are drafts at once;
 * - an OpenAI reasoning item (`reasoning-item`) closes the reasoning block its summary deltas
 *   opened (or stands alone when it had no summary) and keeps its id, encrypted content and model;
 * - a Gemini thought signature (`thoughtSignature` on a text or reasoning delta or a tool call) is
 *   kept in the metadata of the event it came with (`google_thought_signature`).
 *
 * A tool call is held back until the next draft completes or the stream ends (calls come last, so
 * that is at once), so that `message-end` can attach the response's usage to the last event of
 * every answer, whether it ends with text or a tool call (the convention
 * `core/conversation/tokens.ts` reads: `metadata.usage` on the last event of each request's answer).
 * An `error`, or the shell giving up (Ctrl-C), flushes the held call and the open block, the block
 * marked `interrupted`, so a partial answer is kept and visibly partial.
 *
 * The input type is structural: `src/llm`'s `LlmStreamEvent` fits it, and core never imports the
 * shell.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-syntax.js";
import type { ChatResponse, ToolCallRequest } from "./events.js";
import {
  GOOGLE_THOUGHT_SIGNATURE_KEY,
  OPENAI_ENCRYPTED_REASONING_KEY,
  OPENAI_REASONING_ID_KEY,
  OPENAI_REASONING_MODEL_KEY,
} from "../provider-keys.js";

/** Token counts of one response (the shape of `src/llm`'s `LlmUsage`). */
export interface StreamUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens?: number;
}

/**
 * The events of a response stream that carry its content, as `src/llm`'s `LlmStreamEvent` has them
 * (src/llm/types.ts says what each means).
 */
export type StreamContentEvent =
  | { readonly type: "text-delta"; readonly text: string; readonly thoughtSignature?: string }
  | {
      readonly type: "reasoning-delta";
      readonly text: string;
      readonly signature?: string;
      readonly thoughtSignature?: string;
    }
  | { readonly type: "redacted-reasoning"; readonly data: string }
  | { readonly type: "reasoning-item"; readonly id: string; readonly data: string; readonly model: string }
  | {
      readonly type: "tool-call";
      readonly id: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
      readonly invalidArguments?: string;
      readonly thoughtSignature?: string;
    };

/**
 * A response stream's events over the shapes of its usage, finish reason and error: `src/llm`'s
 * `LlmStreamEvent` is one, and the fold's own, `FoldableStreamEvent`, takes it.
 */
export type StreamEvent<Usage, Finish extends string, Failure> =
  | StreamContentEvent
  | { readonly type: "usage"; readonly usage: Usage }
  | {
      readonly type: "message-end";
      readonly finishReason: Finish;
      readonly providerReason?: string;
      readonly usage: Usage;
    }
  | { readonly type: "error"; readonly error: Failure };

/** The stream events the fold understands; `src/llm`'s `LlmStreamEvent` is assignable to it. */
export type FoldableStreamEvent = StreamEvent<
  StreamUsage,
  string,
  { readonly kind: string; readonly message: string }
>;

/** Metadata key holding the raw text of tool arguments that were not a JSON object. */
export const INVALID_ARGUMENTS_KEY = "invalid_arguments";

/**
 * The tool error a model gets for arguments that were refused (their raw text is kept in the
 * call's metadata): too deeply nested, or not a JSON object (quoted back, so it can see why).
 */
export function invalidArgumentsAnswer(text: string): string {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return `The arguments nest more than ${MAX_JSON_DEPTH} levels deep, which no tool accepts; call it again with flatter arguments.`;
  }
  return `The arguments were not a JSON object: ${text}`;
}
/** Metadata key of the provider-reported usage on a response's last message. */
export const USAGE_KEY = "usage";

/** An event to store, before the shell gives it an id and a timestamp. */
export type EventDraft = Omit<ChatResponse, "id" | "ts"> | Omit<ToolCallRequest, "id" | "ts">;

/** The block being accumulated, with the Gemini thought signature that came with it. */
interface OpenBlock {
  readonly kind: "message" | "reasoning";
  readonly text: string;
  readonly thoughtSignature?: string;
}

/** Where the fold stands. Treat as opaque; only the fold functions change it. */
export interface StreamFoldState {
  readonly open: OpenBlock | undefined;
  /** True once `message-end` or `error` was seen; later events are ignored. */
  readonly ended: boolean;
  readonly usage: StreamUsage | undefined;
  /** A completed tool call, held until the next draft completes or the stream ends (see above). */
  readonly held?: EventDraft;
}

/** How a stream finished, once it has. */
export type StreamOutcome =
  | { readonly kind: "finished"; readonly finishReason: string; readonly providerReason?: string }
  | { readonly kind: "failed"; readonly error: { readonly kind: string; readonly message: string } };

/** The result of folding one event. */
export interface FoldStep {
  readonly state: StreamFoldState;
  /** Completed events, in the order they are to be stored. */
  readonly drafts: readonly EventDraft[];
  /** Set by the terminal event. */
  readonly outcome?: StreamOutcome;
}

/** The state before the first event. */
export function createStreamFold(): StreamFoldState {
  return { open: undefined, ended: false, usage: undefined };
}

/** Folds one stream event. */
export function foldStreamEvent(state: StreamFoldState, event: FoldableStreamEvent): FoldStep {
  if (state.ended) return { state, drafts: [] };
  if (event.type === "message-end") return finishFold(state, event);
  if (event.type === "error") {
    return {
      state: { ...state, open: undefined, held: undefined, ended: true },
      drafts: [...heldDraft(state), ...closeBlock(state.open, { interrupted: true })],
      outcome: { kind: "failed", error: event.error },
    };
  }
  return holdLast(foldBlock(state, event));
}

/** The held draft, as a list. */
function heldDraft(state: StreamFoldState): EventDraft[] {
  return state.held === undefined ? [] : [state.held];
}

/** Emits every completed draft but a last tool call, which is held (see the module comment). */
function holdLast(step: FoldStep): FoldStep {
  if (step.drafts.length === 0) return step;
  const all = [...heldDraft(step.state), ...step.drafts];
  const last = all[all.length - 1]!;
  if (last.type !== "tool_call_request")
    return { ...step, state: { ...step.state, held: undefined }, drafts: all };
  return { ...step, state: { ...step.state, held: last }, drafts: all.slice(0, -1) };
}

function foldBlock(
  state: StreamFoldState,
  event: Exclude<FoldableStreamEvent, { type: "message-end" | "error" }>,
): FoldStep {
  switch (event.type) {
    case "text-delta":
      return appendToBlock(state, "message", event.text, event.thoughtSignature);
    case "reasoning-delta":
      return foldReasoning(state, event.text, event.signature, event.thoughtSignature);
    case "redacted-reasoning":
      return flushThen(state, [
        {
          type: "chat_response",
          reasoning: "",
          metadata: { anthropic_redacted_thinking: event.data },
        },
      ]);
    case "reasoning-item": {
      const open = state.open;
      const text = open?.kind === "reasoning" ? open.text : "";
      const before = open?.kind === "message" ? closeBlock(open, {}) : [];
      const metadata = {
        [OPENAI_REASONING_ID_KEY]: event.id,
        [OPENAI_ENCRYPTED_REASONING_KEY]: event.data,
        [OPENAI_REASONING_MODEL_KEY]: event.model,
      };
      return {
        state: { ...state, open: undefined },
        drafts: [...before, { type: "chat_response", reasoning: text, metadata }],
      };
    }
    case "tool-call":
      return flushThen(state, [toolCallDraft(event)]);
    case "usage":
      return { state: { ...state, usage: event.usage }, drafts: [] };
  }
}

/**
 * Flushes the open block when the shell stops reading before the stream ended (Ctrl-C, a crash
 * path). The partial block is marked interrupted.
 */
export function interruptStreamFold(state: StreamFoldState): FoldStep {
  if (state.ended) return { state, drafts: [] };
  return {
    state: { ...state, open: undefined, held: undefined, ended: true },
    drafts: [...heldDraft(state), ...closeBlock(state.open, { interrupted: true })],
  };
}

function appendToBlock(
  state: StreamFoldState,
  kind: OpenBlock["kind"],
  text: string,
  thoughtSignature: string | undefined,
): FoldStep {
  if (state.open?.kind === kind) {
    const signature = thoughtSignature ?? state.open.thoughtSignature;
    const open = {
      kind,
      text: state.open.text + text,
      ...(signature === undefined ? {} : { thoughtSignature: signature }),
    };
    return { state: { ...state, open }, drafts: [] };
  }
  const drafts = closeBlock(state.open, {});
  const open = { kind, text, ...(thoughtSignature === undefined ? {} : { thoughtSignature }) };
  return { state: { ...state, open }, drafts };
}

function foldReasoning(
  state: StreamFoldState,
  text: string,
  signature: string | undefined,
  thoughtSignature: string | undefined,
): FoldStep {
  const step = appendToBlock(state, "reasoning", text, thoughtSignature);
  if (signature === undefined) return step;
  // The signature closes the block: it is what lets the provider accept the reasoning back.
  const open = step.state.open;
  const reasoning = open?.kind === "reasoning" ? open.text : text;
  return {
    state: { ...step.state, open: undefined },
    drafts: [
      ...step.drafts,
      { type: "chat_response", reasoning, metadata: { anthropic_thinking_signature: signature } },
    ],
  };
}

function flushThen(state: StreamFoldState, drafts: readonly EventDraft[]): FoldStep {
  return { state: { ...state, open: undefined }, drafts: [...closeBlock(state.open, {}), ...drafts] };
}

function finishFold(
  state: StreamFoldState,
  event: Extract<FoldableStreamEvent, { type: "message-end" }>,
): FoldStep {
  const usage = event.usage;
  const drafts = [...heldDraft(state), ...closeBlock(state.open, {})];
  const last = drafts.length - 1;
  if (last >= 0) {
    const draft = drafts[last]!;
    drafts[last] = { ...draft, metadata: { ...(draft.metadata ?? {}), [USAGE_KEY]: toStoredUsage(usage) } };
  }
  const outcome: StreamOutcome =
    event.providerReason === undefined
      ? { kind: "finished", finishReason: event.finishReason }
      : { kind: "finished", finishReason: event.finishReason, providerReason: event.providerReason };
  return { state: { open: undefined, ended: true, usage }, drafts, outcome };
}

/** Usage in the snake_case shape stored on events (Anthropic's field names). */
export function toStoredUsage(usage: StreamUsage): Record<string, number> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    ...(usage.reasoningTokens === undefined ? {} : { reasoning_tokens: usage.reasoningTokens }),
  };
}

function closeBlock(open: OpenBlock | undefined, options: { interrupted?: boolean }): EventDraft[] {
  if (open === undefined) return [];
  // An empty block carries nothing worth storing, even when it was cut (nor does a Gemini
  // signature that came on an empty part: no request could carry it back).
  if (open.text.length === 0) return [];
  const interrupted = options.interrupted ? { interrupted: true } : {};
  const metadata =
    open.thoughtSignature === undefined
      ? {}
      : { metadata: { [GOOGLE_THOUGHT_SIGNATURE_KEY]: open.thoughtSignature } };
  return open.kind === "message"
    ? [{ type: "chat_response", message: open.text, ...interrupted, ...metadata }]
    : [{ type: "chat_response", reasoning: open.text, ...interrupted, ...metadata }];
}

function toolCallDraft(event: Extract<FoldableStreamEvent, { type: "tool-call" }>): EventDraft {
  const draft: Omit<ToolCallRequest, "id" | "ts"> = {
    type: "tool_call_request",
    call_id: event.id,
    name: event.name,
    arguments: event.arguments,
  };
  const metadata: Record<string, unknown> = {};
  if (event.invalidArguments !== undefined) metadata[INVALID_ARGUMENTS_KEY] = event.invalidArguments;
  if (event.thoughtSignature !== undefined) metadata[GOOGLE_THOUGHT_SIGNATURE_KEY] = event.thoughtSignature;
  return Object.keys(metadata).length === 0 ? draft : { ...draft, metadata };
}

/** Gives a draft its id and timestamp. */
export function stampDraft(
  draft: EventDraft,
  stamp: { readonly id: string; readonly ts: string },
): ChatResponse | ToolCallRequest {
  return { ...draft, id: stamp.id, ts: stamp.ts } as ChatResponse | ToolCallRequest;
}
