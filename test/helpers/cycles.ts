/**
 * Builders for agent-shaped turns (many cycles, parallel calls) and cycle-precise compactions,
 * on top of the event builders in builders.ts.
 *
 *   const build = createEventBuilder();
 *   const events = [
 *     ...agentTurn(build, "fix the bug", [{ reasoning: "r", calls: 2 }, { calls: 1 }]),
 *     cycleCompaction(build, { from: 0, to: 0, toCycle: 0, tools: "strip-responses" }),
 *   ];
 */
import type {
  Compaction,
  SummaryPolicy,
  ToolCallsPolicy,
  TurnEvent,
} from "../../src/core/conversation/events.js";
import type { EventBuilder, ToolModeShorthand } from "./builders.js";

/** One tool call of a built cycle. */
export interface CallSpec {
  name: string;
  arguments?: Record<string, unknown>;
  result?: string;
  isError?: boolean;
}

/** One cycle of an agent turn: reasoning, a message, and `calls` parallel tool calls. */
export interface CycleSpec {
  reasoning?: string;
  message?: string;
  /** A number of `read_file` calls, or the calls themselves. */
  calls?: number | CallSpec[];
}

/**
 * A turn: turn_start, the request, then per cycle its reasoning, message and calls followed by
 * their results, then the final answer (a cycle of its own) unless `answer` is null.
 */
export function agentTurn(
  build: EventBuilder,
  question: string,
  cycles: readonly CycleSpec[],
  answer: string | null = `a:${question}`,
): TurnEvent[] {
  const events: TurnEvent[] = [build.turnStart(), build.request(question)];
  for (const [index, cycle] of cycles.entries()) {
    if (cycle.reasoning !== undefined) events.push(build.reasoning(cycle.reasoning));
    if (cycle.message !== undefined) events.push(build.message(cycle.message));
    const calls: CallSpec[] =
      typeof cycle.calls === "number" || cycle.calls === undefined
        ? Array.from({ length: cycle.calls ?? 0 }, (_, call) => ({
            name: "read_file",
            arguments: { path: `${question.replace(/\W+/g, "-")}-${index}-${call}.ts` },
            result: `contents of cycle ${index} call ${call} `.repeat(8),
          }))
        : cycle.calls;
    const requests = calls.map((call) =>
      build.toolRequest({ name: call.name, arguments: call.arguments ?? {} }),
    );
    events.push(...requests);
    requests.forEach((request, call) => {
      const spec = calls[call]!;
      events.push(build.toolResponse(request.call_id, spec.result ?? `${request.name} output`, spec.isError));
    });
  }
  if (answer !== null) events.push(build.message(answer));
  return events;
}

/** Options of a built cycle-precise compaction (0-based turns and cycles, as stored). */
export interface CycleCompactionSpec {
  from: number;
  to: number;
  fromCycle?: number;
  toCycle: number;
  summary?: string | SummaryPolicy;
  reasoning?: boolean;
  tools?: ToolModeShorthand | ToolCallsPolicy;
  deferredUntilTurn?: number;
  ts?: string;
  id?: string;
}

function toolPolicy(tools: ToolModeShorthand | ToolCallsPolicy): ToolCallsPolicy {
  if (typeof tools !== "string") return tools;
  if (tools === "omit") return { policy: "omit" };
  return { policy: "strip", request: tools !== "strip-responses", response: tools !== "strip-requests" };
}

/** A `compaction` event with `cycles` (its policies inside it). */
export function cycleCompaction(build: EventBuilder, spec: CycleCompactionSpec): Compaction {
  const base = build.compaction({ from: spec.from, to: spec.to, ...(spec.ts ? { ts: spec.ts } : {}) });
  const cycles: NonNullable<Compaction["cycles"]> = { to: spec.toCycle };
  if (spec.fromCycle !== undefined) cycles.from = spec.fromCycle;
  if (spec.summary !== undefined) {
    cycles.summary =
      typeof spec.summary === "string" ? { summary: spec.summary, source: "derived" } : spec.summary;
  }
  if (spec.reasoning) cycles.reasoning = "strip";
  if (spec.tools !== undefined) cycles.tool_calls = toolPolicy(spec.tools);
  const event: Compaction = { ...base, cycles };
  if (spec.id !== undefined) event.id = spec.id;
  if (spec.deferredUntilTurn !== undefined) event.deferred_until_turn = spec.deferredUntilTurn;
  return event;
}
