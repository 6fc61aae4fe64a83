/**
 * Range bounds: jp's resolve_range, rule-bound and turn_range tests (reference §10.5) plus
 * turn_at_time and the keep conversions of §5.3/§5.4 (the duration parser: duration.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  convertKeepFirst,
  convertKeepLast,
  describeStream,
  formatRuleBound,
  parseRuleBound,
  readRuleBound,
  resolveRange,
  turnAtTime,
} from "../../src/core/position/bounds.js";
import {
  checkTurnSelector,
  convertFromBound,
  convertToBound,
  parseFromBound,
  parseToBound,
  parseTurnSelector,
  selectorBounds,
} from "../../src/core/position/cli-bounds.js";
import { countTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder, tickTime } from "../helpers/builders.js";

function streamWithTurns(count: number) {
  return createEventBuilder().turns(count);
}

describe("resolveRange", () => {
  it("defaults to the whole conversation but is given a trailing keep by callers (test_resolve_range_defaults)", () => {
    expect(resolveRange(streamWithTurns(3))).toEqual({ from: 0, to: 2 });
    expect(resolveRange(streamWithTurns(4), undefined, { kind: "from-end", offset: 1 })).toEqual({
      from: 0,
      to: 2,
    });
  });

  it("takes absolute bounds (test_resolve_range_absolute)", () => {
    const events = streamWithTurns(4);
    expect(resolveRange(events, { kind: "absolute", index: 1 }, { kind: "absolute", index: 2 })).toEqual({
      from: 1,
      to: 2,
    });
  });

  it("takes from-end bounds and clamps the start (test_resolve_range_from_end)", () => {
    const events = streamWithTurns(4);
    expect(resolveRange(events, { kind: "from-end", offset: 2 }, { kind: "from-end", offset: 0 })).toEqual({
      from: 1,
      to: 3,
    });
    expect(resolveRange(events, { kind: "from-end", offset: 10 })).toEqual({ from: 0, to: 3 });
  });

  it("starts after the last compaction (test_resolve_range_after_last_compaction)", () => {
    const build = createEventBuilder();
    const events = build.turns(4);
    expect(resolveRange(events, { kind: "after-last-compaction" })).toEqual({ from: 0, to: 3 });
    const compacted = [...events, build.compaction({ from: 0, to: 1, reasoning: true })];
    expect(resolveRange(compacted, { kind: "after-last-compaction" })).toEqual({ from: 2, to: 3 });
  });

  it("gives nothing when the last compaction reaches the end (test_resolve_range_after_last_compaction_at_end_is_none)", () => {
    const build = createEventBuilder();
    const events = [...build.turns(4), build.compaction({ from: 0, to: 3, reasoning: true })];
    expect(resolveRange(events, { kind: "after-last-compaction" })).toBeUndefined();
  });

  it("ignores retired compactions for the last-compaction baseline", () => {
    const build = createEventBuilder();
    const compaction = build.compaction({ from: 0, to: 3, reasoning: true });
    const events = [...build.turns(4), compaction, build.reset([compaction.id])];
    expect(resolveRange(events, { kind: "after-last-compaction" })).toEqual({ from: 0, to: 3 });
  });

  it("gives nothing for a start past the end (test_resolve_range_keep_first_beyond_end_is_none)", () => {
    expect(resolveRange(streamWithTurns(4), { kind: "absolute", index: 5 })).toBeUndefined();
  });

  it("gives nothing for an end keeping more than exists (test_resolve_range_keep_last_beyond_end_is_none)", () => {
    expect(resolveRange(streamWithTurns(4), undefined, { kind: "from-end", offset: 5 })).toBeUndefined();
  });

  it("gives nothing for an empty stream (test_resolve_range_empty_stream)", () => {
    expect(resolveRange([])).toBeUndefined();
  });

  it("gives nothing for an inverted range (test_resolve_range_inverted_returns_none)", () => {
    expect(
      resolveRange(streamWithTurns(4), { kind: "absolute", index: 1 }, { kind: "absolute", index: 0 }),
    ).toBeUndefined();
  });

  it("clamps an end past the last turn (test_resolve_range_clamps_beyond_max)", () => {
    expect(resolveRange(streamWithTurns(2), undefined, { kind: "absolute", index: 99 })).toEqual({
      from: 0,
      to: 1,
    });
  });
});

describe("turn counting and times", () => {
  it("counts turns (test_turn_count_empty, test_turn_count_two_turns)", () => {
    expect(countTurns([])).toBe(0);
    expect(countTurns(streamWithTurns(2))).toBe(2);
  });

  it("finds the turn active at a time (test_turn_at_time)", () => {
    const events = streamWithTurns(3); // each turn: 3 events, so turns start at ticks 0, 3, 6
    expect(turnAtTime(events, "2025-12-31T23:59:59Z")).toBeUndefined();
    expect(turnAtTime(events, tickTime(0))).toBe(0);
    expect(turnAtTime(events, tickTime(3))).toBe(1);
    expect(turnAtTime(events, tickTime(5))).toBe(1);
    expect(turnAtTime(events, tickTime(100))).toBe(2);
  });

  it("uses each turn's first event as its start, at full precision", () => {
    const facts = describeStream(streamWithTurns(2));
    expect(facts.turnStarts).toEqual([tickTime(0), tickTime(3)]);
    expect(turnAtTime(facts, "2026-01-01T00:00:02.999999999Z")).toBe(0);
  });
});

describe("rule bounds", () => {
  it("reads integers and strings (rule_bound_deserializes_from_integer_and_string)", () => {
    expect(readRuleBound(3)).toEqual({ ok: true, value: { kind: "turns", count: 3 } });
    expect(readRuleBound("last")).toEqual({ ok: true, value: { kind: "after-last-compaction" } });
    expect(readRuleBound("5h")).toEqual({
      ok: true,
      value: { kind: "duration", milliseconds: 5 * 3_600_000 },
    });
    expect(readRuleBound("-2")).toEqual({ ok: true, value: { kind: "from-end", count: 2 } });
    expect(readRuleBound("-0")).toEqual({ ok: true, value: { kind: "from-end", count: 0 } });
    expect(readRuleBound("7")).toEqual({ ok: true, value: { kind: "turns", count: 7 } });
  });

  it("rejects a negative count", () => {
    expect(readRuleBound(-3)).toEqual({ ok: false, message: "turn count must be non-negative, got `-3`" });
  });

  it("writes last-compaction canonically and accepts the alias in any case (rule_bound_after_last_compaction_is_canonical_with_alias)", () => {
    for (const text of ["last", "LAST", "last-compaction", "Last-Compaction"]) {
      const parsed = parseRuleBound(text);
      expect(parsed.ok && formatRuleBound(parsed.value)).toBe("last-compaction");
    }
  });

  it("keeps @N 1-based and rejects @0 (rule_bound_absolute_is_one_based_and_rejects_zero)", () => {
    expect(parseRuleBound("@3")).toEqual({ ok: true, value: { kind: "absolute", turn: 3 } });
    expect(parseRuleBound("@0")).toEqual({
      ok: false,
      message: "absolute turns are 1-based; `@0` is not a valid turn",
    });
    expect(parseRuleBound("@x")).toEqual({ ok: false, message: "invalid absolute turn `@x`" });
    expect(parseRuleBound("-x")).toEqual({ ok: false, message: "invalid from-end bound `-x`" });
    expect(parseRuleBound("soon")).toEqual({
      ok: false,
      message: "invalid range bound `soon`: expected number at 0",
    });
  });

  it("round-trips every kind through its config form", () => {
    for (const text of ["@4", "-2", "5h", "last-compaction", "1h 30m"]) {
      const parsed = parseRuleBound(text);
      expect(parsed.ok && formatRuleBound(parsed.value)).toBe(text);
    }
    expect(formatRuleBound({ kind: "turns", count: 3 })).toBe(3);
  });
});

describe("keep conversions", () => {
  const now = "2026-01-01T01:00:00Z";

  it("maps counts, positions and offsets", () => {
    const facts = describeStream(streamWithTurns(6));
    expect(
      resolveRange(
        facts,
        convertBound(convertKeepFirst({ kind: "turns", count: 1 }, facts)),
        convertBound(convertKeepLast({ kind: "turns", count: 1 }, facts, now)),
      ),
    ).toEqual({ from: 1, to: 4 });
    expect(convertKeepFirst({ kind: "absolute", turn: 3 }, facts)).toEqual({
      kind: "bound",
      bound: { kind: "absolute", index: 2 },
    });
    expect(convertKeepLast({ kind: "absolute", turn: 3 }, facts, now)).toEqual({
      kind: "bound",
      bound: { kind: "absolute", index: 2 },
    });
    expect(convertKeepLast({ kind: "after-last-compaction" }, facts, now)).toEqual({ kind: "default" });
  });

  it("keeps a duration window after the first event for keep_first", () => {
    const facts = describeStream(streamWithTurns(6)); // turns start at 0s, 3s, 6s, …
    expect(convertKeepFirst({ kind: "duration", milliseconds: 4000 }, facts)).toEqual({
      kind: "bound",
      bound: { kind: "absolute", index: 2 },
    });
    expect(convertKeepFirst({ kind: "duration", milliseconds: 1000 }, describeStream([]))).toEqual({
      kind: "empty",
    });
  });

  it("compacts nothing when keep_last's duration covers every turn", () => {
    const facts = describeStream(streamWithTurns(6));
    expect(convertKeepLast({ kind: "duration", milliseconds: 30 * 86_400_000 }, facts, now)).toEqual({
      kind: "empty",
    });
    expect(convertKeepLast({ kind: "duration", milliseconds: 3_600_000 - 7000 }, facts, now)).toEqual({
      kind: "bound",
      bound: { kind: "absolute", index: 2 },
    });
  });
});

function convertBound(resolution: ReturnType<typeof convertKeepFirst>) {
  return resolution.kind === "bound" ? resolution.bound : undefined;
}

describe("command-line bounds", () => {
  const now = "2026-01-01T00:00:10Z";

  it("makes absolute positions 1-based (parse_bound_absolute_is_one_based)", () => {
    expect(parseFromBound("1", now)).toEqual({ ok: true, value: { kind: "absolute", index: 0 } });
    expect(parseFromBound("5", now)).toEqual({ ok: true, value: { kind: "absolute", index: 4 } });
  });

  it("makes from-end offsets 1-based (parse_bound_from_end_is_one_based)", () => {
    expect(parseToBound("-1", now)).toEqual({ ok: true, value: { kind: "from-end", offset: 0 } });
    expect(parseToBound("-3", now)).toEqual({ ok: true, value: { kind: "from-end", offset: 2 } });
  });

  it("rejects zero (parse_bound_rejects_zero)", () => {
    expect(parseFromBound("0", now)).toEqual({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseFromBound("-0", now)).toEqual({
      ok: false,
      message: "from-end offsets are 1-based; use `-1` for the last turn",
    });
  });

  it("accepts last-compaction and its alias on --from (parse_bound_accepts_last_compaction_and_alias)", () => {
    for (const text of ["last-compaction", "last", "LAST"]) {
      expect(parseFromBound(text, now)).toEqual({ ok: true, value: { kind: "after-last-compaction" } });
    }
  });

  it("rejects last-compaction on --to but accepts indices (parse_to_bound_rejects_last_compaction_but_accepts_indices)", () => {
    expect(parseToBound("last-compaction", now)).toEqual({
      ok: false,
      message: "`last-compaction` is only valid for `--from` (it marks the most recent compaction)",
    });
    expect(parseToBound("3", now).ok).toBe(true);
  });

  it("turns a duration into a cutoff at parse time", () => {
    expect(parseFromBound("5s", now)).toEqual({
      ok: true,
      value: { kind: "cutoff", time: "2026-01-01T00:00:05.000000000Z" },
    });
    expect(parseFromBound("5 parsecs", now)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^invalid range bound `5 parsecs`: /),
    });
  });

  it("resolves cutoffs: --from starts after the active turn, --to ends at it", () => {
    const facts = describeStream(streamWithTurns(4)); // starts at 0s, 3s, 6s, 9s
    const cutoff = { kind: "cutoff", time: tickTime(4) } as const;
    expect(convertFromBound(cutoff, facts)).toEqual({ kind: "bound", bound: { kind: "absolute", index: 2 } });
    expect(convertToBound(cutoff, facts)).toEqual({ kind: "bound", bound: { kind: "absolute", index: 1 } });
    const early = { kind: "cutoff", time: "2025-01-01T00:00:00Z" } as const;
    expect(convertFromBound(early, facts)).toEqual({ kind: "bound", bound: { kind: "absolute", index: 0 } });
    expect(convertToBound(early, facts)).toEqual({ kind: "empty" });
    expect(convertFromBound({ kind: "cutoff", time: tickTime(50) }, facts)).toEqual({ kind: "empty" });
  });

  it("makes --first and --last complete selectors (first_and_last_are_complete_selectors)", () => {
    const facts = describeStream(streamWithTurns(10));
    const first = selectorBounds({ kind: "first", count: 3 });
    const last = selectorBounds({ kind: "last", count: 3 });
    expect(resolveRange(facts, convertBound(first.from), convertBound(first.to))).toEqual({ from: 0, to: 2 });
    expect(resolveRange(facts, convertBound(last.from), convertBound(last.to))).toEqual({ from: 7, to: 9 });
  });

  it("treats --first 0 as an empty selection (first_zero_is_an_empty_selection)", () => {
    expect(selectorBounds({ kind: "first", count: 0 })).toEqual({
      from: { kind: "empty" },
      to: { kind: "empty" },
    });
    expect(selectorBounds({ kind: "last", count: 0 }).to).toEqual({ kind: "empty" });
  });

  it("parses --turn N and A..B (parse_turn_single_and_range)", () => {
    expect(parseTurnSelector("3")).toEqual({ ok: true, value: { kind: "turns", from: 3, to: 3 } });
    expect(parseTurnSelector("2..5")).toEqual({ ok: true, value: { kind: "turns", from: 2, to: 5 } });
  });

  it("sets both ends for open ranges (turn_open_ended_ranges_set_both_bounds)", () => {
    const facts = describeStream(streamWithTurns(6));
    for (const [text, range] of [
      ["3..", { from: 2, to: 5 }],
      ["..4", { from: 0, to: 3 }],
      ["..", { from: 0, to: 5 }],
    ] as const) {
      const parsed = parseTurnSelector(text);
      if (!parsed.ok) throw new Error(parsed.message);
      const bounds = selectorBounds(parsed.value);
      expect(bounds.from.kind).toBe("bound");
      expect(bounds.to.kind).toBe("bound");
      expect(resolveRange(facts, convertBound(bounds.from), convertBound(bounds.to))).toEqual(range);
    }
  });

  it("rejects zero and non-numbers in --turn (parse_one_based_rejects_zero)", () => {
    expect(parseTurnSelector("0")).toEqual({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseTurnSelector("1..0")).toEqual({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseTurnSelector("x")).toEqual({ ok: false, message: "invalid turn number `x`" });
  });

  it("flags --turn ends past the conversation", () => {
    expect(checkTurnSelector({ kind: "turns", from: 100, to: 100 }, 5)).toBe(
      "turn 100 out of range (conversation has 5 turns)",
    );
    expect(checkTurnSelector({ kind: "turns", to: 100 }, 5)).toBe(
      "turn 100 out of range (conversation has 5 turns)",
    );
    expect(checkTurnSelector({ kind: "turns", from: 3, to: 3 }, 5)).toBeUndefined();
  });
});
