/**
 * Tiny event builders for tests: a fixed clock (one second per event from 2026-01-01T00:00:00Z)
 * and counter ids (`e1`, `e2`, …), so streams are deterministic and readable.
 *
 *   const build = createEventBuilder();
 *   const events = [
 *     ...build.turn("q0", { reasoning: "r0", tools: [{ name: "read_file", result: "text" }] }),
 *     ...build.turn("q1"),
 *     build.compaction({ from: 0, to: 0, reasoning: true }),
 *   ];
 *
 * The module-level helpers (`turn`, `compaction`, …) share one default builder; call
 * `resetBuilders()` in a `beforeEach` when ids or timestamps matter.
 */
import type {
  ChatRequest,
  ChatResponse,
  Compaction,
  CompactionReset,
  CompactionSource,
  ConfigDelta,
  ConversationEvent,
  SummaryPolicy,
  ToolCallRequest,
  ToolCallResponse,
  ToolCallsPolicy,
  TurnEvent,
  TurnStart,
  UnknownEvent,
} from "../../src/core/conversation/events.js";

/** One tool call of a built turn. */
export interface ToolSpec {
  name: string;
  arguments?: Record<string, unknown>;
  /** Response content; defaults to `<name> output`. */
  result?: string;
  isError?: boolean;
  /** Defaults to a counter id `call-N`. */
  callId?: string;
}

/** Options of a built turn. Event order: turn_start, request, reasoning, tool pairs, answer. */
export interface TurnSpec {
  reasoning?: string;
  tools?: ToolSpec[];
  /** Assistant message; defaults to `a:<question>`; `null` leaves it out. */
  answer?: string | null;
  /** Leave out the leading turn_start (a legacy/implicit turn). */
  withoutTurnStart?: boolean;
}

/** Shorthand tool modes for `compaction({ tools })`. */
export type ToolModeShorthand = "strip" | "strip-requests" | "strip-responses" | "omit";

/** Options of a built compaction (turn numbers are 0-based, as stored). */
export interface CompactionSpec {
  from: number;
  to: number;
  summary?: string | SummaryPolicy;
  reasoning?: boolean;
  tools?: ToolModeShorthand | ToolCallsPolicy;
  source?: CompactionSource;
  note?: string;
  deferredUntilTurn?: number;
  /** Overrides the clock (for timestamp-tie tests). */
  ts?: string;
  id?: string;
}

const EPOCH_MS = Date.UTC(2026, 0, 1);

/** The fixed-clock timestamp of tick `n` (seconds after 2026-01-01T00:00:00Z). */
export function tickTime(tick: number): string {
  return new Date(EPOCH_MS + tick * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function toolPolicy(tools: ToolModeShorthand | ToolCallsPolicy): ToolCallsPolicy {
  if (typeof tools !== "string") return tools;
  if (tools === "omit") return { policy: "omit" };
  return {
    policy: "strip",
    request: tools !== "strip-responses",
    response: tools !== "strip-requests",
  };
}

export function createEventBuilder() {
  let counter = 0;
  let callCounter = 0;
  let tick = 0;
  const next = () => {
    counter += 1;
    return { id: `e${counter}`, ts: tickTime(tick++) };
  };
  const builder = {
    /** The current clock tick (the next event gets this time). */
    now: () => tickTime(tick),
    /** Advances the clock by `seconds` without creating an event. */
    advance: (seconds: number) => {
      tick += seconds;
    },
    turnStart: (): TurnStart => ({ type: "turn_start", ...next() }),
    request: (content: string): ChatRequest => ({ type: "chat_request", ...next(), content }),
    message: (text: string): ChatResponse =>
      ({ type: "chat_response", ...next(), message: text }) as ChatResponse,
    reasoning: (text: string): ChatResponse =>
      ({ type: "chat_response", ...next(), reasoning: text }) as ChatResponse,
    toolRequest: (spec: ToolSpec): ToolCallRequest => ({
      type: "tool_call_request",
      ...next(),
      call_id: spec.callId ?? `call-${++callCounter}`,
      name: spec.name,
      arguments: spec.arguments ?? { path: `${spec.name}.txt` },
    }),
    toolResponse: (callId: string, content: string, isError = false): ToolCallResponse => ({
      type: "tool_call_response",
      ...next(),
      call_id: callId,
      content,
      is_error: isError,
    }),
    /** A whole turn; see TurnSpec for the event order. */
    turn: (question: string, spec: TurnSpec = {}): TurnEvent[] => {
      const events: TurnEvent[] = [];
      if (!spec.withoutTurnStart) events.push(builder.turnStart());
      events.push(builder.request(question));
      if (spec.reasoning !== undefined) events.push(builder.reasoning(spec.reasoning));
      for (const tool of spec.tools ?? []) {
        const request = builder.toolRequest(tool);
        events.push(
          request,
          builder.toolResponse(request.call_id, tool.result ?? `${tool.name} output`, tool.isError),
        );
      }
      if (spec.answer !== null) events.push(builder.message(spec.answer ?? `a:${question}`));
      return events;
    },
    /** `count` plain turns `q0/a:q0`, `q1/a:q1`, … */
    turns: (count: number, spec: TurnSpec = {}): TurnEvent[] =>
      Array.from({ length: count }, (_, index) => builder.turn(`q${index}`, spec)).flat(),
    compaction: (spec: CompactionSpec): Compaction => {
      const stamp = next();
      const event: Compaction = {
        type: "compaction",
        id: spec.id ?? stamp.id,
        ts: spec.ts ?? stamp.ts,
        from_turn: spec.from,
        to_turn: spec.to,
        source: spec.source ?? "user",
      };
      if (spec.summary !== undefined) {
        event.summary =
          typeof spec.summary === "string" ? { summary: spec.summary, source: "derived" } : spec.summary;
      }
      if (spec.reasoning) event.reasoning = "strip";
      if (spec.tools !== undefined) event.tool_calls = toolPolicy(spec.tools);
      if (spec.note !== undefined) event.note = spec.note;
      if (spec.deferredUntilTurn !== undefined) event.deferred_until_turn = spec.deferredUntilTurn;
      return event;
    },
    reset: (retires: string[]): CompactionReset => ({ type: "compaction_reset", ...next(), retires }),
    configDelta: (delta: Record<string, unknown>): ConfigDelta => ({
      type: "config_delta",
      ...next(),
      delta,
    }),
    unknown: (raw: Record<string, unknown> = {}): UnknownEvent => ({
      type: "unknown",
      raw: { type: "future_kind", ...next(), ...raw },
    }),
  };
  return builder;
}

export type EventBuilder = ReturnType<typeof createEventBuilder>;

let shared = createEventBuilder();

/** Starts the shared builder's clock and counters afresh. */
export function resetBuilders(): void {
  shared = createEventBuilder();
}

export const turn = (question: string, spec?: TurnSpec) => shared.turn(question, spec);
export const turns = (count: number, spec?: TurnSpec) => shared.turns(count, spec);
export const compaction = (spec: CompactionSpec) => shared.compaction(spec);
export const reset = (retires: string[]) => shared.reset(retires);
export const configDelta = (delta: Record<string, unknown>) => shared.configDelta(delta);

/** Only the events of the given types, for compact assertions. */
export function eventsOfType<T extends ConversationEvent["type"]>(
  events: readonly ConversationEvent[],
  type: T,
): Extract<ConversationEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ConversationEvent, { type: T }> => event.type === type);
}

/** The events a provider would see: requests, responses and tool calls. */
export function visibleEvents(events: readonly ConversationEvent[]): ConversationEvent[] {
  const visible = new Set(["chat_request", "chat_response", "tool_call_request", "tool_call_response"]);
  return events.filter((event) => visible.has(event.type));
}
