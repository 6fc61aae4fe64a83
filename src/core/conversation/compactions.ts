/**
 * Which compaction overlays are in force, and how resets are planned. Pure.
 *
 * cxc never deletes a compaction. Removing one (jp's `--reset`) appends a `compaction_reset` that
 * retires it; undoing a reset appends another reset that retires the first, which brings back what
 * it retired. So the active set is read by walking the stream backwards: a reset that is itself
 * retired has no effect, any other reset retires its targets.
 *
 * The 1-based `number` of an active compaction is its position among the active compactions in
 * stream order. It is the numbering `show` prints and `--reset=N` takes (jp numbers every
 * compaction entry; cxc's retired ones play the part of jp's deleted ones).
 */
import type { Compaction, CompactionReset, ConversationEvent } from "./events.js";
import { describeCompactionRange, formatCount } from "../present/labels.js";

/** A compaction that no reset has retired. */
export interface ActiveCompaction {
  /** 1-based position among the active compactions, in stream order. */
  readonly number: number;
  /** Index of the event in the stream it was read from. */
  readonly position: number;
  readonly compaction: Compaction;
}

/** Ids retired by the resets that are themselves in force (the reverse walk described above). */
function collectRetiredIds(events: readonly ConversationEvent[]): Set<string> {
  const retired = new Set<string>();
  for (let position = events.length - 1; position >= 0; position--) {
    const event = events[position]!;
    if (event.type !== "compaction_reset" || retired.has(event.id)) continue;
    for (const id of event.retires) retired.add(id);
  }
  return retired;
}

/** The compactions in force, in stream order, numbered from 1. Deferred ones are included. */
export function activeCompactions(events: readonly ConversationEvent[]): ActiveCompaction[] {
  const retired = collectRetiredIds(events);
  const active: ActiveCompaction[] = [];
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (event.type === "compaction" && !retired.has(event.id)) {
      active.push({ number: active.length + 1, position, compaction: event });
    }
  }
  return active;
}

/** The resets in force (not retired by a later reset), in stream order. */
export function activeResets(events: readonly ConversationEvent[]): CompactionReset[] {
  const retired = collectRetiredIds(events);
  return events.filter(
    (event): event is CompactionReset => event.type === "compaction_reset" && !retired.has(event.id),
  );
}

/**
 * True when projection applies the compaction now: a compaction deferred until turn `D` waits
 * until the conversation's highest turn index reaches `D`.
 */
export function isCompactionInEffect(compaction: Compaction, turnCount: number): boolean {
  return compaction.deferred_until_turn === undefined || turnCount - 1 >= compaction.deferred_until_turn;
}

/** What a reset would retire. */
export type ResetPlan =
  | { ok: true; retires: string[]; removed: Compaction[] }
  | { ok: false; kind: "nothing-to-remove" | "out-of-range"; message: string };

/** Plans `--reset` (every active compaction) or `--reset=N` (the N-th active one, 1-based). */
export function planReset(
  events: readonly ConversationEvent[],
  options: { index?: number; last?: number } = {},
): ResetPlan {
  const active = activeCompactions(events);
  if (options.index !== undefined) {
    // `--reset=A..B` retires the compactions numbered A to B in one reset (one step to undo).
    const last = options.last ?? options.index;
    for (const number of [options.index, last]) {
      if (number < 1 || active[number - 1] === undefined) {
        return {
          ok: false,
          kind: "out-of-range",
          message: `compaction ${number} out of range (conversation has ${formatCount(active.length, "compaction event")})`,
        };
      }
    }
    const targets = active.slice(options.index - 1, last);
    return {
      ok: true,
      retires: targets.map((entry) => entry.compaction.id),
      removed: targets.map((entry) => entry.compaction),
    };
  }
  if (active.length === 0) {
    return { ok: false, kind: "nothing-to-remove", message: "No compaction events to remove." };
  }
  return {
    ok: true,
    retires: active.map((entry) => entry.compaction.id),
    removed: active.map((entry) => entry.compaction),
  };
}

/** What undoing the latest reset would do. */
export type UndoResetPlan =
  | {
      ok: true;
      retires: string[];
      reset: CompactionReset;
      /** True when the reset undone was itself an undo: undoing it re-applies the reset it undid. */
      redo: boolean;
      /** Compactions back in force afterwards. */
      restored: Compaction[];
      /** Compactions in force before and retired afterwards (a redo retires them again). */
      retired: Compaction[];
    }
  | { ok: false; kind: "nothing-to-undo"; message: string };

/**
 * Plans undoing the most recent reset in force: a new reset that retires it. An undo is itself a
 * reset, so undoing twice in a row re-applies the first reset (a redo): the plan says which
 * compactions come back and which are retired again, from the active sets before and after.
 */
export function planUndoReset(events: readonly ConversationEvent[]): UndoResetPlan {
  const resets = activeResets(events);
  const latest = resets[resets.length - 1];
  if (latest === undefined) {
    return { ok: false, kind: "nothing-to-undo", message: "No compaction reset to undo." };
  }
  const before = activeCompactions(events).map((entry) => entry.compaction);
  const undo: CompactionReset = {
    type: "compaction_reset",
    id: "\u0000undo",
    ts: latest.ts,
    retires: [latest.id],
  };
  const after = activeCompactions([...events, undo]).map((entry) => entry.compaction);
  const beforeIds = new Set(before.map((compaction) => compaction.id));
  const afterIds = new Set(after.map((compaction) => compaction.id));
  const resetIds = new Set(events.flatMap((event) => (event.type === "compaction_reset" ? [event.id] : [])));
  return {
    ok: true,
    retires: [latest.id],
    reset: latest,
    redo: latest.retires.some((id) => resetIds.has(id)),
    restored: after.filter((compaction) => !beforeIds.has(compaction.id)),
    retired: before.filter((compaction) => !afterIds.has(compaction.id)),
  };
}

/** Builds the `compaction_reset` event for a planned reset. */
export function buildResetEvent(
  retires: readonly string[],
  options: { id: string; ts: string },
): CompactionReset {
  return { type: "compaction_reset", id: options.id, ts: options.ts, retires: [...retires] };
}

/** Parses the value of `--reset=N` (1-based), with jp's texts. */
export function parseCompactionIndex(
  text: string,
): { ok: true; index: number; last?: number } | { ok: false; message: string } {
  const range = /^(\d+)\.\.(\d+)$/.exec(text);
  if (!/^\d+$/.test(text) && range === null)
    return { ok: false, message: `invalid compaction index '${text}'` };
  const [index, last] = range === null ? [Number(text), undefined] : [Number(range[1]), Number(range[2])];
  if (index === 0 || last === 0)
    return { ok: false, message: "compaction indices are 1-based; `0` is not a valid index" };
  if (last !== undefined && last < index)
    return { ok: false, message: `invalid compaction range '${text}': ${index} is after ${last}` };
  return last === undefined || last === index ? { ok: true, index } : { ok: true, index, last };
}

/**
 * The line printed after a reset (jp's texts): `Removed N compaction events.` for a full reset,
 * `Removed compaction N (turns A..B).` for one (`(turn 4, cycles 1..37)` for a cycle-precise one),
 * and `Would remove …` under `--dry-run`.
 */
export function describeReset(
  removed: readonly Compaction[],
  options: { index?: number; last?: number; dryRun: boolean },
): string {
  const verb = options.dryRun ? "Would remove" : "Removed";
  const first = removed[0];
  if (options.index !== undefined && options.last !== undefined) {
    return `${verb} compactions ${options.index}..${options.last} (${removed.map(describeCompactionRange).join("; ")}).`;
  }
  if (options.index !== undefined && first !== undefined) {
    return `${verb} compaction ${options.index} (${describeCompactionRange(first)}).`;
  }
  return `${verb} ${formatCount(removed.length, "compaction event")}.`;
}
