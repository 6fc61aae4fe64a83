/**
 * Property tests for projection (jp's projection_tests.rs proptests, reference §10.2, plus cxc's
 * deferred and retired compactions), over arbitrary streams where tool pairs share a turn.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Compaction,
  type ConversationEvent,
  compareTimestamps,
  isTurnEvent,
  type TurnEvent,
} from "../../src/core/conversation/events.js";
import { projectConversation, SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { assignTurnIndices, countTurns, groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder, type ToolModeShorthand, tickTime } from "../helpers/builders.js";

const TOOL_MODES: ToolModeShorthand[] = ["strip", "strip-requests", "strip-responses", "omit"];

const turnSpec = fc.record({
  reasoning: fc.boolean(),
  tools: fc.array(fc.boolean(), { maxLength: 2 }),
  withoutAnswer: fc.boolean(),
});

const compactionSpec = fc.record({
  from: fc.nat(14),
  length: fc.nat(6),
  summary: fc.boolean(),
  reasoning: fc.boolean(),
  tools: fc.option(fc.constantFrom(...TOOL_MODES), { nil: undefined }),
  // Few distinct timestamps, so ties (broken by stream order) are common.
  tick: fc.nat(4),
  afterTurn: fc.nat(14),
  deferredUntilTurn: fc.option(fc.nat(15), { nil: undefined, freq: 4 }),
});

type TurnSpec = typeof turnSpec extends fc.Arbitrary<infer T> ? T : never;
type CompactionSpecValue = typeof compactionSpec extends fc.Arbitrary<infer T> ? T : never;

interface BuiltStream {
  events: ConversationEvent[];
  compactions: Compaction[];
}

/** Turns in order, each compaction inserted after turn `afterTurn` (clamped). */
function buildStream(turns: TurnSpec[], compactions: CompactionSpecValue[]): BuiltStream {
  const build = createEventBuilder();
  const turnEvents = turns.map((spec, index) =>
    build.turn(`q${index}`, {
      ...(spec.reasoning ? { reasoning: `r${index}` } : {}),
      tools: spec.tools.map((isError, toolIndex) => ({ name: `tool${toolIndex}`, isError })),
      ...(spec.withoutAnswer ? { answer: null } : {}),
    }),
  );
  const built = compactions.map((spec, index) =>
    build.compaction({
      id: `c${index}`,
      from: spec.from,
      to: spec.from + spec.length,
      ...(spec.summary ? { summary: `summary ${index}` } : {}),
      reasoning: spec.reasoning,
      ...(spec.tools ? { tools: spec.tools } : {}),
      ts: tickTime(10_000 + spec.tick),
      ...(spec.deferredUntilTurn === undefined ? {} : { deferredUntilTurn: spec.deferredUntilTurn }),
    }),
  );
  const events: ConversationEvent[] = [];
  turnEvents.forEach((turn, turnIndex) => {
    events.push(...turn);
    compactions.forEach((spec, index) => {
      if (Math.min(spec.afterTurn, turnEvents.length - 1) === turnIndex) events.push(built[index]!);
    });
  });
  return { events, compactions: built };
}

const streams = fc
  .tuple(fc.array(turnSpec, { minLength: 1, maxLength: 12 }), fc.array(compactionSpec, { maxLength: 6 }))
  .map(([turns, compactions]) => buildStream(turns, compactions));

describe("projection properties", () => {
  it("holds its invariants on arbitrary streams (projection_holds_invariants)", () => {
    fc.assert(
      fc.property(streams, ({ events }) => {
        const snapshot = structuredClone(events);
        const view = projectConversation(events);
        expect(events).toEqual(snapshot);
        // Every overlay is consumed.
        expect(
          view.events.some((event) => event.type === "compaction" || event.type === "compaction_reset"),
        ).toBe(false);
        // No orphaned tool responses.
        const requested = new Set(
          view.events.flatMap((event) => (event.type === "tool_call_request" ? [event.call_id] : [])),
        );
        for (const event of view.events) {
          if (event.type === "tool_call_response") expect(requested.has(event.call_id)).toBe(true);
        }
        // Re-projection is a no-op.
        expect(projectConversation(view.events).events).toEqual(view.events);
        // The turns hold exactly the projected turn events, in order.
        const turnEvents = view.events.filter(
          (event) => event.type !== "config_delta" && event.type !== "unknown",
        );
        expect(view.turns.flatMap((turn) => turn.events)).toEqual(turnEvents);
      }),
      { numRuns: 250 },
    );
  });

  it("agrees with a naive per-turn reference implementation", () => {
    fc.assert(
      fc.property(streams, ({ events }) => {
        expect(projectConversation(events).events).toEqual(projectNaively(events));
      }),
      { numRuns: 250 },
    );
  });

  it("applies disjoint mechanical ranges to their turns only (each_strategy_applies_to_its_turns)", () => {
    const layout = fc.tuple(
      fc.array(turnSpec, { minLength: 1, maxLength: 12 }),
      fc.array(
        fc.record({
          gap: fc.nat(2),
          length: fc.nat(3),
          reasoning: fc.boolean(),
          tools: fc.option(fc.constantFrom(...TOOL_MODES), { nil: undefined }),
        }),
        { maxLength: 4 },
      ),
    );
    fc.assert(
      fc.property(layout, ([turns, blocks]) => {
        let cursor = 0;
        const specs: CompactionSpecValue[] = blocks.map((block) => {
          const from = cursor + block.gap;
          cursor = from + block.length + 1;
          return {
            from,
            length: block.length,
            summary: false,
            reasoning: block.reasoning,
            tools: block.tools,
            tick: 0,
            afterTurn: 99,
            deferredUntilTurn: undefined,
          };
        });
        const { events, compactions } = buildStream(turns, specs);
        const view = projectConversation(events);
        const raw = groupTurns(events);
        expect(view.turns.map((turn) => turn.origin)).toEqual(
          raw.map((turn) => ({ kind: "kept", turn: turn.index })),
        );
        for (const turn of raw) {
          const owner = compactions.find(
            (compaction) => compaction.from_turn <= turn.index && turn.index <= compaction.to_turn,
          );
          const expected = owner === undefined ? turn.events : expectMechanical(turn.events, owner);
          expect(view.turns[turn.index]!.events).toEqual(expected);
        }
      }),
      { numRuns: 256 },
    );
  });

  it("ignores a deferred compaction until its turn, then applies it", () => {
    fc.assert(
      fc.property(streams, fc.nat(14), ({ events, compactions }, deferredUntil) => {
        const target = compactions[0];
        if (target === undefined) return;
        const deferred = events.map((event) =>
          event === target ? { ...target, deferred_until_turn: deferredUntil } : event,
        );
        const withoutDeferral = events.map((event) =>
          event === target ? { ...target, deferred_until_turn: undefined } : event,
        );
        const without = events.filter((event) => event !== target);
        const expected = countTurns(events) - 1 >= deferredUntil ? withoutDeferral : without;
        expect(projectConversation(deferred)).toEqual(projectConversation(expected));
      }),
      { numRuns: 200 },
    );
  });

  it("ignores retired compactions exactly as if they were never written", () => {
    fc.assert(
      fc.property(
        streams,
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        ({ events, compactions }, retire) => {
          const retired = compactions.filter((_, index) => retire[index]);
          const reset: ConversationEvent = {
            type: "compaction_reset",
            id: "reset",
            ts: tickTime(20_000),
            retires: retired.map((c) => c.id),
          };
          const withReset = [...events, reset];
          const withoutRetired = events.filter((event) => !retired.includes(event as Compaction));
          expect(projectConversation(withReset)).toEqual(projectConversation(withoutRetired));
          const undo: ConversationEvent = {
            type: "compaction_reset",
            id: "undo",
            ts: tickTime(20_001),
            retires: ["reset"],
          };
          expect(projectConversation([...withReset, undo])).toEqual(projectConversation(events));
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** The expected events of a turn under one mechanical compaction, written independently. */
function expectMechanical(events: readonly TurnEvent[], compaction: Compaction): TurnEvent[] {
  const names = new Map(
    events.flatMap((event) =>
      event.type === "tool_call_request" ? [[event.call_id, event.name] as const] : [],
    ),
  );
  const result: TurnEvent[] = [];
  for (const event of events) {
    if (compaction.reasoning && event.type === "chat_response" && event.reasoning !== undefined) continue;
    const tools = compaction.tool_calls;
    if (
      tools?.policy === "omit" &&
      (event.type === "tool_call_request" || event.type === "tool_call_response")
    )
      continue;
    if (tools?.policy === "strip" && tools.request && event.type === "tool_call_request") {
      result.push({ ...event, arguments: {} });
    } else if (tools?.policy === "strip" && tools.response && event.type === "tool_call_response") {
      result.push({
        ...event,
        content: `[compacted] ${names.get(event.call_id)}: ${event.is_error ? "error" : "success"}`,
      });
    } else {
      result.push(event);
    }
  }
  return result;
}

/**
 * Reference projection straight from the jp description (§4.2–4.3): for every turn and type, scan
 * all compactions and keep the latest (ties: later in the stream). Quadratic, and obviously so.
 * Streams generated here have no resets.
 */
function projectNaively(events: readonly ConversationEvent[]): ConversationEvent[] {
  const turnCount = countTurns(events);
  const compactions = events.filter(
    (event): event is Compaction =>
      event.type === "compaction" &&
      (event.deferred_until_turn === undefined || turnCount - 1 >= event.deferred_until_turn),
  );
  const winner = (turn: number, has: (compaction: Compaction) => boolean) => {
    let found: Compaction | undefined;
    for (const compaction of compactions) {
      const covers = compaction.from_turn <= turn && turn <= Math.min(compaction.to_turn, turnCount - 1);
      if (
        covers &&
        has(compaction) &&
        (found === undefined || compareTimestamps(compaction.ts, found.ts) >= 0)
      )
        found = compaction;
    }
    return found;
  };
  const names = new Map(
    events.flatMap((event) =>
      event.type === "tool_call_request" ? [[event.call_id, event.name] as const] : [],
    ),
  );
  const indices = assignTurnIndices(events);
  const injected = new Set<number>();
  const output: ConversationEvent[] = [];
  events.forEach((event, position) => {
    if (!isTurnEvent(event)) {
      if (event.type !== "compaction") output.push(event);
      return;
    }
    const turn = indices[position]!;
    const summary = winner(turn, (compaction) => compaction.summary !== undefined);
    if (summary !== undefined) {
      const opensRun =
        turn === 0 || winner(turn - 1, (compaction) => compaction.summary !== undefined) !== summary;
      if (opensRun && !injected.has(turn)) {
        injected.add(turn);
        const prefix = `${summary.id}:summary:${turn}`;
        output.push(
          { type: "turn_start", id: `${prefix}:turn_start`, ts: event.ts },
          { type: "chat_request", id: `${prefix}:request`, ts: event.ts, content: SUMMARY_REQUEST_TEXT },
          {
            type: "chat_response",
            id: `${prefix}:response`,
            ts: event.ts,
            message: summary.summary!.summary,
          } as ConversationEvent,
        );
      }
      return;
    }
    const reasoning = winner(turn, (compaction) => compaction.reasoning !== undefined);
    const tools = winner(turn, (compaction) => compaction.tool_calls !== undefined)?.tool_calls;
    if (reasoning && event.type === "chat_response" && event.reasoning !== undefined) return;
    const isTool = event.type === "tool_call_request" || event.type === "tool_call_response";
    if (tools?.policy === "omit" && isTool) return;
    if (tools?.policy === "strip" && tools.request && event.type === "tool_call_request") {
      output.push({ ...event, arguments: {} });
    } else if (tools?.policy === "strip" && tools.response && event.type === "tool_call_response") {
      const name = names.get(event.call_id) ?? "unknown";
      output.push({ ...event, content: `[compacted] ${name}: ${event.is_error ? "error" : "success"}` });
    } else {
      output.push(event);
    }
  });
  return output;
}
