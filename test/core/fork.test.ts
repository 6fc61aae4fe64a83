/**
 * Copying the selected turns of a conversation into a fork (pure): jp's `retain` tests
 * (stream_tests.rs, reference §3.4) and cxc's extensions — new ids, renumbered overlays for
 * `--last`, remapped resets, the config in force.
 */
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { copyEventsForFork, selectTurnSlice } from "../../src/core/conversation/fork.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { countTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder, eventsOfType } from "../helpers/builders.js";

/** Keeps the source ids, so the copies can be compared with the source events. */
const sameId = (id: string): string => id;

/** The fork of `events` for a `--first`/`--last` selection, ids kept. */
function forkEvents(
  events: readonly ConversationEvent[],
  selection: { first?: number; last?: number },
): ConversationEvent[] {
  return copyEventsForFork(events, selectTurnSlice(countTurns(events), selection), sameId).events;
}

describe("copyEventsForFork: jp's retain rule", () => {
  function stream() {
    const build = createEventBuilder();
    const delta = build.configDelta({ a: 1 });
    const events: ConversationEvent[] = [
      ...build.turns(3, { reasoning: "thinking" }),
      delta,
      ...build.turn("q3", { reasoning: "thinking" }),
      ...build.turn("q4", { reasoning: "thinking" }),
      build.compaction({ id: "early", from: 0, to: 1, reasoning: true }),
      build.compaction({ id: "late", from: 2, to: 4, reasoning: true }),
    ];
    return { events, delta };
  }
  const ids = (events: readonly ConversationEvent[]) => eventsOfType(events, "compaction").map((c) => c.id);

  it("keeps every compaction when nothing is removed (test_retain_keeping_everything_preserves_compactions)", () => {
    const { events } = stream();
    expect(copyEventsForFork(events, { start: 0, end: 5 }, sameId).events).toEqual(events);
  });

  it("drops compactions reaching the first removed turn and keeps those before (test_retain_keeps_compactions_entirely_before_removal)", () => {
    const { events } = stream();
    expect(ids(copyEventsForFork(events, { start: 0, end: 3 }, sameId).events)).toEqual(["early"]);
  });

  it("drops every compaction when removal starts at turn 0 (test_retain_last_turns_drops_compactions)", () => {
    const { events } = stream();
    const forked = forkEvents(events, { last: 2 });
    expect(ids(forked)).toEqual([]);
    expect(countTurns(forked)).toBe(2);
  });

  it("keeps compactions when --last covers everything (test_retain_last_turns_no_truncation_keeps_compactions)", () => {
    const { events } = stream();
    expect(ids(forkEvents(events, { last: 10 }))).toEqual(["early", "late"]);
  });

  it("keeps a leading compaction with --first (test_retain_first_turns_drops_compactions, test_retain_first_and_last_keeps_leading_block_compaction)", () => {
    const { events } = stream();
    expect(ids(forkEvents(events, { first: 2 }))).toEqual(["early"]);
    expect(ids(forkEvents(events, { first: 1 }))).toEqual([]);
  });

  it("keeps the config deltas of removed turns that precede the kept ones", () => {
    const { events, delta } = stream();
    expect(forkEvents(events, { last: 2 })).toContainEqual(delta);
  });

  it("drops a config delta that comes after the kept turns", () => {
    const { events, delta } = stream();
    expect(forkEvents(events, { first: 1 })).not.toContainEqual(delta);
  });

  it("keeps the projection of the kept turns unchanged", () => {
    const { events } = stream();
    const forked = forkEvents(events, { first: 2 });
    expect(projectConversation(forked).turns).toEqual(projectConversation(events).turns.slice(0, 2));
  });

  it("selects first and last turns", () => {
    expect(selectTurnSlice(5, { first: 2 })).toEqual({ start: 0, end: 2 });
    expect(selectTurnSlice(5, { last: 2 })).toEqual({ start: 3, end: 5 });
    expect(selectTurnSlice(5, { first: 0 })).toEqual({ start: 0, end: 0 });
    expect(selectTurnSlice(3, {})).toEqual({ start: 0, end: 3 });
    expect(selectTurnSlice(5, { first: 9, last: 0 })).toEqual({ start: 5, end: 5 });
  });
});

describe("copyEventsForFork: new ids, renumbering, resets", () => {
  it("keeps the selected turns with fresh ids and leaves the input alone", () => {
    const build = createEventBuilder();
    const events = [...build.turns(3), build.compaction({ id: "c", from: 1, to: 2, reasoning: true })];
    const snapshot = structuredClone(events);
    let counter = 0;
    const forked = copyEventsForFork(events, { start: 1, end: 3 }, () => `new${++counter}`);
    expect(events).toEqual(snapshot);
    expect(countTurns(forked.events)).toBe(2);
    expect(forked.droppedCompactions).toBe(0);
    expect(forked.events.map((event) => (event.type === "unknown" ? "?" : event.id))).toEqual([
      "new1",
      "new2",
      "new3",
      "new4",
      "new5",
      "new6",
      "new7",
    ]);
    expect(forked.events.at(-1)).toMatchObject({ type: "compaction", from_turn: 0, to_turn: 1 });
  });

  it("drops a compaction that starts before the selection", () => {
    const build = createEventBuilder();
    const events = [...build.turns(3), build.compaction({ from: 0, to: 1, reasoning: true })];
    const forked = copyEventsForFork(events, { start: 1, end: 3 }, () => "x");
    expect(forked.droppedCompactions).toBe(1);
    expect(forked.events.some((event) => event.type === "compaction")).toBe(false);
  });

  it("shifts a deferral with the turns and forgets one the fork has already reached", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(4),
      build.compaction({ id: "later", from: 2, to: 2, reasoning: true, deferredUntilTurn: 5 }),
      build.compaction({ id: "reached", from: 3, to: 3, reasoning: true, deferredUntilTurn: 2 }),
    ];
    const forked = eventsOfType(copyEventsForFork(events, { start: 2, end: 4 }, sameId).events, "compaction");
    expect(
      forked.map((compaction) => [compaction.id, compaction.from_turn, compaction.deferred_until_turn]),
    ).toEqual([
      ["later", 0, 3],
      ["reached", 1, undefined],
    ]);
    expect("deferred_until_turn" in forked[1]!).toBe(false);
  });

  it("points resets at the copies and drops those left with nothing to retire", () => {
    const build = createEventBuilder();
    const kept = build.compaction({ id: "kept", from: 0, to: 0, reasoning: true });
    const lost = build.compaction({ id: "lost", from: 0, to: 2, reasoning: true });
    const events = [...build.turns(3), kept, lost, build.reset(["kept", "lost"]), build.reset(["lost"])];
    const forked = copyEventsForFork(events, { start: 0, end: 2 }, (id) => `copy-${id}`).events;
    const resets = eventsOfType(forked, "compaction_reset");
    expect(resets.map((reset) => reset.retires)).toEqual([["copy-kept"]]);
  });

  it("drops a reset whose only target was a dropped reset", () => {
    const build = createEventBuilder();
    const inner = build.reset(["lost"]);
    const events = [
      ...build.turns(3),
      build.compaction({ id: "lost", from: 1, to: 2, reasoning: true }),
      inner,
      build.reset([inner.id]),
    ];
    const forked = copyEventsForFork(events, { start: 0, end: 1 }, sameId).events;
    expect(forked.some((event) => event.type === "compaction_reset")).toBe(false);
  });

  it("keeps unknown entries inside the selection only", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turns(1),
      build.unknown({ type: "future", n: 0 }),
      ...build.turns(1),
      build.unknown({ type: "future", n: 1 }),
      ...build.turns(1),
      build.unknown({ type: "future", n: 2 }),
    ];
    const forked = copyEventsForFork(events, { start: 1, end: 2 }, sameId).events;
    expect(forked.flatMap((event) => (event.type === "unknown" ? [event.raw.n] : []))).toEqual([1]);
  });
});

describe("copyEventsForFork: reported usage", () => {
  it("drops the usage of turns after a turn the fork leaves out: it described another context", () => {
    const build = createEventBuilder();
    const usage = { input_tokens: 100, output_tokens: 5 };
    const withUsage = (events: ConversationEvent[]) =>
      events.map((event) =>
        event.type === "chat_response" ? ({ ...event, metadata: { usage } } as ConversationEvent) : event,
      );
    const events = withUsage(build.turns(4));
    const usageOf = (list: readonly ConversationEvent[]) =>
      eventsOfType(list, "chat_response").map((event) => event.metadata?.usage !== undefined);
    // The first two turns: the same context as the original's, usage kept.
    expect(usageOf(forkEvents(events, { first: 2 }))).toEqual([true, true]);
    // The last two: the original's requests also sent the turns before them.
    expect(usageOf(forkEvents(events, { last: 2 }))).toEqual([false, false]);
  });
});
