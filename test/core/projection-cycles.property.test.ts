/**
 * Properties of projection with cycle-precise compactions, over arbitrary agent-shaped streams
 * (turns of many cycles with parallel calls) and arbitrary mixes of whole-turn and cycle-precise
 * compactions: per-turn projection is unchanged, calls keep their results, the turns' user
 * messages stay, nothing outside a compaction changes, and requests stay valid.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HEAD, layoutCycles } from "../../src/core/conversation/cycles.js";
import type { Compaction, ConversationEvent } from "../../src/core/conversation/events.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { assignTurnIndices } from "../../src/core/conversation/turns.js";
import { createEventBuilder, eventsOfType, type ToolModeShorthand, tickTime } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

const TOOL_MODES: ToolModeShorthand[] = ["strip", "strip-requests", "strip-responses", "omit"];

const cycleSpec = fc.record({ reasoning: fc.boolean(), calls: fc.nat(3) });
const turnSpec = fc.record({ cycles: fc.array(cycleSpec, { maxLength: 6 }), answer: fc.boolean() });

const compactionSpec = fc.record({
  precise: fc.boolean(),
  from: fc.nat(5),
  length: fc.nat(2),
  fromCycle: fc.option(fc.nat(6), { nil: undefined }),
  toCycle: fc.nat(7),
  summary: fc.boolean(),
  reasoning: fc.boolean(),
  tools: fc.option(fc.constantFrom(...TOOL_MODES), { nil: undefined }),
  tick: fc.nat(3),
});

type TurnSpec = typeof turnSpec extends fc.Arbitrary<infer T> ? T : never;
type CompactionSpecValue = typeof compactionSpec extends fc.Arbitrary<infer T> ? T : never;

function buildTurns(turns: readonly TurnSpec[]) {
  const build = createEventBuilder();
  const events: ConversationEvent[] = turns.flatMap((spec, index) =>
    agentTurn(
      build,
      `q${index}`,
      spec.cycles.map((cycle, position) => ({
        ...(cycle.reasoning ? { reasoning: `r${index}.${position}` } : {}),
        calls: cycle.calls,
      })),
      spec.answer ? `a${index}` : null,
    ),
  );
  return { build, events };
}

function buildCompactions(
  build: ReturnType<typeof createEventBuilder>,
  specs: readonly CompactionSpecValue[],
  options: { inTurnSummariesOnly?: boolean } = {},
): Compaction[] {
  return specs.map((spec, index) => {
    const common = { id: `c${index}`, ts: tickTime(10_000 + spec.tick), reasoning: spec.reasoning };
    const tools = spec.tools === undefined ? {} : { tools: spec.tools };
    if (!spec.precise) {
      if (options.inTurnSummariesOnly && spec.summary) return build.compaction({ ...common, from: 0, to: 0 });
      return build.compaction({
        ...common,
        ...tools,
        from: spec.from,
        to: spec.from + spec.length,
        ...(spec.summary ? { summary: `summary ${index}` } : {}),
      });
    }
    const inTurn = options.inTurnSummariesOnly && spec.summary;
    return cycleCompaction(build, {
      ...common,
      ...tools,
      from: spec.from,
      to: inTurn ? spec.from : spec.from + spec.length,
      ...(inTurn
        ? { fromCycle: spec.fromCycle ?? 0 }
        : spec.fromCycle === undefined
          ? {}
          : { fromCycle: spec.fromCycle }),
      toCycle: spec.toCycle,
      ...(spec.summary ? { summary: `summary ${index}` } : {}),
    });
  });
}

const streams = fc.tuple(
  fc.array(turnSpec, { minLength: 1, maxLength: 5 }),
  fc.array(compactionSpec, { maxLength: 5 }),
);

describe("projection with cycle-precise compactions (properties)", () => {
  it("projects whole-turn compactions per cycle exactly as per turn", () => {
    fc.assert(
      fc.property(streams, ([turns, specs]) => {
        const { build, events } = buildTurns(turns);
        const whole = buildCompactions(
          build,
          specs.map((spec) => ({ ...spec, precise: false })),
        );
        // A cycle-precise compaction without policy switches projection to per-cycle slots.
        const switcher = cycleCompaction(build, { from: 0, to: 0, toCycle: 0 });
        const perTurn = projectConversation([...events, ...whole]);
        const perCycle = projectConversation([...events, ...whole, switcher]);
        expect(perCycle).toEqual(perTurn);
      }),
    );
  });

  it("never separates a call from its result", () => {
    fc.assert(
      fc.property(streams, ([turns, specs]) => {
        const { build, events } = buildTurns(turns);
        const view = projectConversation([...events, ...buildCompactions(build, specs)]);
        const calls = eventsOfType(view.events, "tool_call_request").map((event) => event.call_id);
        const results = eventsOfType(view.events, "tool_call_response").map((event) => event.call_id);
        expect([...results].sort()).toEqual([...calls].sort());
      }),
    );
  });

  it("keeps every user message and assistant text when summaries stand inside turns", () => {
    fc.assert(
      fc.property(streams, ([turns, specs]) => {
        const { build, events } = buildTurns(turns);
        const compactions = buildCompactions(
          build,
          specs.map((spec) => ({ ...spec, summary: false })),
        );
        const view = projectConversation([...events, ...compactions]);
        const texts = (list: readonly ConversationEvent[]) =>
          list.flatMap((event) =>
            event.type === "chat_request"
              ? [event.content]
              : event.type === "chat_response" && event.message
                ? [event.message]
                : [],
          );
        expect(texts(view.events)).toEqual(texts(events));
        const withSummaries = projectConversation([
          ...events,
          ...buildCompactions(build, specs, { inTurnSummariesOnly: true }),
        ]);
        const requests = eventsOfType(withSummaries.events, "chat_request").map((event) => event.content);
        for (const request of eventsOfType(events, "chat_request"))
          expect(requests).toContain(request.content);
      }),
    );
  });

  it("leaves every event outside the compactions' cycles as it was", () => {
    fc.assert(
      fc.property(streams, ([turns, specs]) => {
        const { build, events } = buildTurns(turns);
        const compactions = buildCompactions(
          build,
          specs.map((spec) => ({ ...spec, precise: true })),
        );
        const view = projectConversation([...events, ...compactions]);
        const indices = assignTurnIndices(events);
        const layout = layoutCycles(events, indices);
        const covered = (position: number) =>
          compactions.some((compaction) => {
            const turn = indices[position]!;
            const cycle = layout.cycles[position]!;
            const from = compaction.cycles!.from;
            const afterStart =
              turn > compaction.from_turn ||
              (turn === compaction.from_turn && (from === undefined || (cycle !== HEAD && cycle >= from)));
            const beforeEnd =
              turn < compaction.to_turn || (turn === compaction.to_turn && cycle <= compaction.cycles!.to);
            return afterStart && beforeEnd;
          });
        const output = new Set(view.events);
        events.forEach((event, position) => {
          if (!covered(position)) expect(output.has(event)).toBe(true);
        });
      }),
    );
  });

  it("builds requests whose roles alternate and whose results answer the calls before them", () => {
    fc.assert(
      fc.property(streams, ([turns, specs]) => {
        const { build, events } = buildTurns(turns);
        const request = buildLlmRequest(
          projectConversation([...events, ...buildCompactions(build, specs)]).turns,
        );
        request.messages.forEach((message, index) => {
          if (index > 0) expect(message.role).not.toBe(request.messages[index - 1]!.role);
          const results = message.parts.flatMap((part) => (part.type === "tool-result" ? [part.callId] : []));
          if (results.length === 0) return;
          const previous = request.messages[index - 1]!;
          const calls = previous.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : []));
          expect([...results].sort()).toEqual([...calls].sort());
          // Results lead the user message that answers the calls.
          expect(message.parts.slice(0, results.length).every((part) => part.type === "tool-result")).toBe(
            true,
          );
        });
      }),
    );
  });
});
