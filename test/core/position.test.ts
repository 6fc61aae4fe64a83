/**
 * The position algebra (src/core/position/): jp's resolve_range, rule-bound and turn_range tests
 * (reference §10.5), turn_at_time, and the keep and flag conversions of §5.3/§5.4, each through a
 * surface's parser and the one resolver (the duration parser: duration.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { countTurns } from "../../src/core/conversation/turns.js";
import {
  type Bound,
  type BoundRange,
  describePositions,
  OPEN_END,
  OPEN_START,
  resolveBoundRange,
  turnAtTime,
} from "../../src/core/position/bound.js";
import {
  firstTurns,
  lastTurns,
  parseFlagBound,
  parseKeep,
  parseSpecRange,
  parseTurnSpan,
  readKeep,
} from "../../src/core/position/parse.js";
import { createEventBuilder, tickTime } from "../helpers/builders.js";

function streamWithTurns(count: number) {
  return createEventBuilder().turns(count);
}

const NOW = "2026-01-01T01:00:00Z";

/** The whole turns a range covers (0-based), undefined for nothing. */
function turnsOf(
  events: readonly ConversationEvent[],
  range: BoundRange,
  now = NOW,
): { from: number; to: number } | undefined {
  const resolved = resolveBoundRange(describePositions(events, now), range);
  if (resolved.kind === "invalid") throw new Error(resolved.message);
  return resolved.kind === "empty" ? undefined : { from: resolved.span.from.turn, to: resolved.span.to.turn };
}

function turnBound(turn: number): Bound {
  return { kind: "turn", turn };
}

function fromEnd(count: number): Bound {
  return { kind: "count", unit: "turns", count, from: "end" };
}

function value<T>(parsed: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

describe("resolving a range", () => {
  it("defaults to the whole conversation but is given a trailing keep by callers (test_resolve_range_defaults)", () => {
    expect(turnsOf(streamWithTurns(3), {})).toEqual({ from: 0, to: 2 });
    expect(turnsOf(streamWithTurns(4), { end: fromEnd(1) })).toEqual({ from: 0, to: 2 });
  });

  it("takes absolute bounds (test_resolve_range_absolute)", () => {
    expect(turnsOf(streamWithTurns(4), { start: turnBound(1), end: turnBound(2) })).toEqual({
      from: 1,
      to: 2,
    });
  });

  it("takes from-end bounds and clamps the start (test_resolve_range_from_end)", () => {
    const events = streamWithTurns(4);
    // jp's FromEnd(2)..FromEnd(0): a start at last - 2, an open end.
    expect(turnsOf(events, { start: fromEnd(3), end: OPEN_END })).toEqual({ from: 1, to: 3 });
    expect(turnsOf(events, { start: fromEnd(11) })).toEqual({ from: 0, to: 3 });
  });

  it("starts after the last compaction (test_resolve_range_after_last_compaction)", () => {
    const build = createEventBuilder();
    const events = build.turns(4);
    const start: Bound = { kind: "after-last-compaction" };
    expect(turnsOf(events, { start })).toEqual({ from: 0, to: 3 });
    const compacted = [...events, build.compaction({ from: 0, to: 1, reasoning: true })];
    expect(turnsOf(compacted, { start })).toEqual({ from: 2, to: 3 });
  });

  it("gives nothing when the last compaction reaches the end (test_resolve_range_after_last_compaction_at_end_is_none)", () => {
    const build = createEventBuilder();
    const events = [...build.turns(4), build.compaction({ from: 0, to: 3, reasoning: true })];
    expect(turnsOf(events, { start: { kind: "after-last-compaction" } })).toBeUndefined();
  });

  it("ignores retired compactions for the last-compaction baseline", () => {
    const build = createEventBuilder();
    const compaction = build.compaction({ from: 0, to: 3, reasoning: true });
    const events = [...build.turns(4), compaction, build.reset([compaction.id])];
    expect(turnsOf(events, { start: { kind: "after-last-compaction" } })).toEqual({ from: 0, to: 3 });
  });

  it("gives nothing for a start past the end (test_resolve_range_keep_first_beyond_end_is_none)", () => {
    expect(turnsOf(streamWithTurns(4), { start: turnBound(5) })).toBeUndefined();
  });

  it("gives nothing for an end keeping more than exists (test_resolve_range_keep_last_beyond_end_is_none)", () => {
    expect(turnsOf(streamWithTurns(4), { end: fromEnd(5) })).toBeUndefined();
  });

  it("gives nothing for an empty stream (test_resolve_range_empty_stream)", () => {
    expect(turnsOf([], {})).toBeUndefined();
  });

  it("gives nothing for an inverted range (test_resolve_range_inverted_returns_none)", () => {
    expect(turnsOf(streamWithTurns(4), { start: turnBound(1), end: turnBound(0) })).toBeUndefined();
  });

  it("clamps an end past the last turn (test_resolve_range_clamps_beyond_max)", () => {
    expect(turnsOf(streamWithTurns(2), { end: turnBound(99) })).toEqual({ from: 0, to: 1 });
  });

  it("resolves whole-turn ranges to a turn's head and end, precise ranges to cycles", () => {
    const facts = describePositions(streamWithTurns(3), NOW);
    expect(resolveBoundRange(facts, { start: turnBound(1) })).toMatchObject({
      kind: "span",
      precise: false,
      span: { from: { turn: 1, cycle: -1 }, to: { turn: 2, cycle: Number.MAX_SAFE_INTEGER } },
    });
  });
});

describe("turn counting and times", () => {
  it("counts turns (test_turn_count_empty, test_turn_count_two_turns)", () => {
    expect(countTurns([])).toBe(0);
    expect(countTurns(streamWithTurns(2))).toBe(2);
  });

  it("finds the turn active at a time (test_turn_at_time)", () => {
    // Each turn: 3 events, so turns start at ticks 0, 3, 6.
    const { turnStarts } = describePositions(streamWithTurns(3), NOW);
    expect(turnAtTime(turnStarts, "2025-12-31T23:59:59Z")).toBeUndefined();
    expect(turnAtTime(turnStarts, tickTime(0))).toBe(0);
    expect(turnAtTime(turnStarts, tickTime(3))).toBe(1);
    expect(turnAtTime(turnStarts, tickTime(5))).toBe(1);
    expect(turnAtTime(turnStarts, tickTime(100))).toBe(2);
  });

  it("uses each turn's first event as its start, at full precision", () => {
    const facts = describePositions(streamWithTurns(2), NOW);
    expect(facts.turnStarts).toEqual([tickTime(0), tickTime(3)]);
    expect(turnAtTime(facts.turnStarts, "2026-01-01T00:00:02.999999999Z")).toBe(0);
  });
});

describe("keep_first and keep_last", () => {
  it("reads integers and strings (rule_bound_deserializes_from_integer_and_string)", () => {
    expect(readKeep(3, "start")).toEqual({
      ok: true,
      value: { kind: "count", unit: "turns", count: 3, from: "start" },
    });
    expect(readKeep("last", "start")).toEqual({ ok: true, value: { kind: "after-last-compaction" } });
    expect(readKeep("5h", "end")).toEqual({
      ok: true,
      value: { kind: "time", time: { beforeNow: 5 * 3_600_000 } },
    });
    // jp's FromEnd(N): keep_first starts at `last - N`, keep_last keeps the last N.
    expect(readKeep("-2", "start")).toEqual({ ok: true, value: fromEnd(3) });
    expect(readKeep("-2", "end")).toEqual({ ok: true, value: fromEnd(2) });
    expect(readKeep("-0", "end")).toEqual({ ok: true, value: fromEnd(0) });
    expect(readKeep("7", "end")).toEqual({ ok: true, value: fromEnd(7) });
  });

  it("rejects a negative count", () => {
    expect(readKeep(-3, "start")).toEqual({
      ok: false,
      message: "turn count must be non-negative, got `-3`",
    });
  });

  it("accepts last-compaction and its alias in any case (rule_bound_after_last_compaction_is_canonical_with_alias)", () => {
    for (const text of ["last", "LAST", "last-compaction", "Last-Compaction"]) {
      expect(parseKeep(text, "start")).toEqual({ ok: true, value: { kind: "after-last-compaction" } });
      // As keep_last it keeps nothing (jp ignores it there).
      expect(parseKeep(text, "end")).toEqual({ ok: true, value: OPEN_END });
    }
  });

  it("keeps @N 1-based and rejects @0 (rule_bound_absolute_is_one_based_and_rejects_zero)", () => {
    expect(parseKeep("@3", "start")).toEqual({ ok: true, value: { kind: "turn", turn: 2 } });
    expect(parseKeep("@0", "start")).toEqual({
      ok: false,
      message: "absolute turns are 1-based; `@0` is not a valid turn",
    });
    expect(parseKeep("@x", "start")).toEqual({ ok: false, message: "invalid absolute turn `@x`" });
    expect(parseKeep("-x", "start")).toEqual({ ok: false, message: "invalid from-end bound `-x`" });
    expect(parseKeep("soon", "start")).toEqual({
      ok: false,
      message: "invalid range bound `soon`: expected number at 0",
    });
  });

  it("maps counts, positions and offsets", () => {
    const events = streamWithTurns(6);
    const keep = (first: string, last: string) =>
      turnsOf(events, { start: value(parseKeep(first, "start")), end: value(parseKeep(last, "end")) });
    expect(keep("1", "1")).toEqual({ from: 1, to: 4 });
    expect(keep("@3", "@5")).toEqual({ from: 2, to: 4 });
    expect(keep("0", "last-compaction")).toEqual({ from: 0, to: 5 });
  });

  it("keeps a duration window after the first event for keep_first", () => {
    // Turns start at 0s, 3s, 6s, …: the first 4 seconds hold turns 1 and 2.
    expect(turnsOf(streamWithTurns(6), { start: value(parseKeep("4s", "start")) })).toEqual({
      from: 2,
      to: 5,
    });
    expect(turnsOf([], { start: value(parseKeep("1s", "start")) })).toBeUndefined();
  });

  it("compacts nothing when keep_last's duration covers every turn", () => {
    const events = streamWithTurns(6);
    expect(turnsOf(events, { end: value(parseKeep("30d", "end")) })).toBeUndefined();
    // An hour minus 7 seconds before 01:00:00 is 00:00:07: the turn of 6s is the last compacted.
    expect(turnsOf(events, { end: value(parseKeep("59m 53s", "end")) })).toEqual({ from: 0, to: 2 });
  });
});

describe("compact --from and --to", () => {
  const now = "2026-01-01T00:00:10Z";

  it("makes absolute positions 1-based (parse_bound_absolute_is_one_based)", () => {
    expect(parseFlagBound("1", "start", now)).toEqual({ ok: true, value: turnBound(0) });
    expect(parseFlagBound("5", "start", now)).toEqual({ ok: true, value: turnBound(4) });
  });

  it("makes from-end offsets 1-based (parse_bound_from_end_is_one_based)", () => {
    const events = streamWithTurns(5);
    // `--to -1` ends at the last turn, `--to -3` two before it.
    expect(turnsOf(events, { end: value(parseFlagBound("-1", "end", now)) })).toEqual({ from: 0, to: 4 });
    expect(turnsOf(events, { end: value(parseFlagBound("-3", "end", now)) })).toEqual({ from: 0, to: 2 });
    expect(turnsOf(events, { start: value(parseFlagBound("-2", "start", now)) })).toEqual({ from: 3, to: 4 });
  });

  it("rejects zero (parse_bound_rejects_zero)", () => {
    expect(parseFlagBound("0", "start", now)).toEqual({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseFlagBound("-0", "start", now)).toEqual({
      ok: false,
      message: "from-end offsets are 1-based; use `-1` for the last turn",
    });
  });

  it("accepts last-compaction and its alias on --from (parse_bound_accepts_last_compaction_and_alias)", () => {
    for (const text of ["last-compaction", "last", "LAST"]) {
      expect(parseFlagBound(text, "start", now)).toEqual({
        ok: true,
        value: { kind: "after-last-compaction" },
      });
    }
  });

  it("rejects last-compaction on --to but accepts indices (parse_to_bound_rejects_last_compaction_but_accepts_indices)", () => {
    expect(parseFlagBound("last-compaction", "end", now)).toEqual({
      ok: false,
      message: "`last-compaction` is only valid for `--from` (it marks the most recent compaction)",
    });
    expect(parseFlagBound("3", "end", now).ok).toBe(true);
  });

  it("turns a duration into a time at parse time, and takes dates and RFC 3339 times", () => {
    expect(parseFlagBound("5s", "start", now)).toEqual({
      ok: true,
      value: { kind: "time", time: { at: "2026-01-01T00:00:05.000000000Z" } },
    });
    expect(parseFlagBound("2025-12-31", "start", now)).toEqual({
      ok: true,
      value: { kind: "time", time: { at: "2025-12-31T00:00:00.000000000Z" } },
    });
    expect(parseFlagBound("2026-01-01T00:00:04Z", "end", now)).toEqual({
      ok: true,
      value: { kind: "time", time: { at: "2026-01-01T00:00:04.000000000Z" } },
    });
    expect(parseFlagBound("5 parsecs", "start", now)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^invalid range bound `5 parsecs`: /),
    });
  });

  it("resolves times: --from starts after the active turn, --to ends at it", () => {
    const events = streamWithTurns(4); // starts at 0s, 3s, 6s, 9s
    const at = (time: string): Bound => ({ kind: "time", time: { at: time } });
    expect(turnsOf(events, { start: at(tickTime(4)) })).toEqual({ from: 2, to: 3 });
    expect(turnsOf(events, { end: at(tickTime(4)) })).toEqual({ from: 0, to: 1 });
    expect(turnsOf(events, { start: at("2025-01-01T00:00:00Z") })).toEqual({ from: 0, to: 3 });
    expect(turnsOf(events, { end: at("2025-01-01T00:00:00Z") })).toBeUndefined();
    expect(turnsOf(events, { start: at(tickTime(50)) })).toBeUndefined();
  });

  it("resolves fork's window: the turns started at or after --from and before --until", () => {
    const events = streamWithTurns(4); // starts at 0s, 3s, 6s, 9s
    const started = (time: string): Bound => ({ kind: "started", time: { at: time } });
    // A turn starting at the very moment is in `--from`'s window and out of `--until`'s.
    expect(turnsOf(events, { start: started(tickTime(3)) })).toEqual({ from: 1, to: 3 });
    expect(turnsOf(events, { end: started(tickTime(3)) })).toEqual({ from: 0, to: 0 });
    expect(turnsOf(events, { start: started(tickTime(4)), end: started(tickTime(9)) })).toEqual({
      from: 2,
      to: 2,
    });
    expect(turnsOf(events, { end: started(tickTime(0)) })).toBeUndefined();
    expect(turnsOf(events, { start: started(tickTime(10)) })).toBeUndefined();
    expect(turnsOf(events, { start: started(tickTime(6)), end: started(tickTime(6)) })).toBeUndefined();
  });
});

describe("--first, --last and --turn", () => {
  it("makes --first and --last complete selectors (first_and_last_are_complete_selectors)", () => {
    const events = streamWithTurns(10);
    expect(turnsOf(events, firstTurns(3))).toEqual({ from: 0, to: 2 });
    expect(turnsOf(events, lastTurns(3))).toEqual({ from: 7, to: 9 });
  });

  it("treats --first 0 as an empty selection (first_zero_is_an_empty_selection)", () => {
    const events = streamWithTurns(4);
    expect(turnsOf(events, firstTurns(0))).toBeUndefined();
    expect(turnsOf(events, lastTurns(0))).toBeUndefined();
  });

  it("parses --turn N and A..B (parse_turn_single_and_range)", () => {
    expect(value(parseTurnSpan("3"))).toEqual({
      start: { kind: "turn", turn: 2, exact: true },
      end: { kind: "turn", turn: 2, exact: true },
    });
    expect(turnsOf(streamWithTurns(6), value(parseTurnSpan("2..5")))).toEqual({ from: 1, to: 4 });
  });

  it("sets both ends for open ranges (turn_open_ended_ranges_set_both_bounds)", () => {
    const events = streamWithTurns(6);
    for (const [text, range] of [
      ["3..", { from: 2, to: 5 }],
      ["..4", { from: 0, to: 3 }],
      ["..", { from: 0, to: 5 }],
    ] as const) {
      const parsed = value(parseTurnSpan(text));
      expect(parsed.start).toBeDefined();
      expect(parsed.end).toBeDefined();
      expect(turnsOf(events, parsed)).toEqual(range);
    }
    expect(value(parseTurnSpan(".."))).toEqual({ start: OPEN_START, end: OPEN_END });
  });

  it("rejects zero and non-numbers in --turn (parse_one_based_rejects_zero)", () => {
    expect(parseTurnSpan("0")).toMatchObject({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseTurnSpan("1..0")).toMatchObject({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseTurnSpan("x")).toMatchObject({ ok: false, message: "invalid turn number `x`" });
    expect(parseTurnSpan("5..2")).toMatchObject({
      ok: false,
      message: "invalid turn range 5..2 (the start is after the end)",
    });
  });

  it("refuses --turn ends past the conversation, never clamping them, in one wording", () => {
    const facts = describePositions(streamWithTurns(5), NOW);
    for (const text of ["100", "..100", "3..100"]) {
      expect(resolveBoundRange(facts, value(parseTurnSpan(text)))).toEqual({
        kind: "invalid",
        message: "turn 100 out of range (conversation has 5 turns)",
      });
    }
    expect(resolveBoundRange(describePositions(streamWithTurns(1), NOW), value(parseTurnSpan("2")))).toEqual({
      kind: "invalid",
      message: "turn 2 out of range (conversation has 1 turn)",
    });
    expect(resolveBoundRange(facts, value(parseTurnSpan("3")))).toMatchObject({ kind: "span" });
  });
});

describe("the -k range", () => {
  it("reads a left -N as `last - N` and a right -N as keeping the last N", () => {
    const events = streamWithTurns(12);
    expect(turnsOf(events, value(parseSpecRange("-10..-3")))).toEqual({ from: 1, to: 8 });
    expect(turnsOf(events, value(parseSpecRange("-3")))).toEqual({ from: 0, to: 8 });
    expect(turnsOf(events, value(parseSpecRange("5")))).toEqual({ from: 4, to: 11 });
    expect(turnsOf(events, value(parseSpecRange("5..10")))).toEqual({ from: 4, to: 9 });
  });

  it("keeps cycle counts to the end of a range", () => {
    expect(value(parseSpecRange("-5calls"))).toEqual({
      start: OPEN_START,
      end: { kind: "count", unit: "calls", count: 5, from: "end" },
    });
    expect(parseSpecRange("-5calls..")).toEqual({
      ok: false,
      message: "'-5calls' counts from the end, so it can only end a range (..-5calls)",
    });
  });
});
