/**
 * The turn selectors of `print` and `fork`: `--first N`, `--last N` and `--turn N|A..B|A..|..B|..`
 * (print), and fork's time window (`--from/--until`). Thin parsers into the one position algebra
 * (core/position/): the same grammar and the same resolver as `compact`'s, so an out-of-range
 * `--turn` end is the same error, never clamped (jp's rule): `turn 100 out of range (conversation
 * has 5 turns)`. Turn numbers are 1-based on the command line and 0-based in storage; ranges are
 * inclusive. This layer adds the hints.
 */
import type { TurnSlice } from "../../core/conversation/fork.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import {
  type Bound,
  type BoundRange,
  describePositions,
  resolveBoundRange,
} from "../../core/position/bound.js";
import { parseTimePoint } from "../../core/position/duration.js";
import { firstTurns, lastTurns, parseTurnSpan } from "../../core/position/parse.js";
import { CxcError } from "../../errors.js";

/** A parsed selector: the range of turns it names (empty: every turn). */
export type TurnSelection = BoundRange;

/** The raw option values as commander hands them over. */
export interface TurnSelectionOptions {
  readonly first?: string;
  readonly last?: string;
  readonly turn?: string;
}

/** Selected turns as 0-based indices, `start` inclusive and `end` exclusive. */
export type ResolvedTurns = TurnSlice;

const RANGE_HINT = "use --turn N, --turn A..B, --turn A.. or --turn ..B (1-based, inclusive)";

/** Parses the selector flags; more than one of them is a usage error. */
export function parseTurnSelection(options: TurnSelectionOptions): TurnSelection {
  const given = (["first", "last", "turn"] as const).filter((name) => options[name] !== undefined);
  if (given.length > 1) {
    throw new CxcError("usage", `--${given[0]} and --${given[1]} cannot be used together`, {
      hint: "pick one of --first, --last or --turn",
    });
  }
  if (options.first !== undefined) return firstTurns(parseCount("--first", options.first));
  if (options.last !== undefined) return lastTurns(parseCount("--last", options.last));
  if (options.turn !== undefined) {
    const parsed = parseTurnSpan(options.turn);
    if (!parsed.ok) throw new CxcError("invalid-range", parsed.message, { hint: RANGE_HINT });
    return parsed.value;
  }
  return {};
}

function parseCount(flag: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) {
    throw new CxcError(
      "invalid-range",
      `invalid ${flag} value '${text}' (expected a whole number of turns)`,
      {
        hint: `e.g. ${flag} 3`,
      },
    );
  }
  return Number(text.trim());
}

/** Resolves a selection against a conversation's events. */
export function resolveTurnSelection(
  selection: TurnSelection,
  events: readonly ConversationEvent[],
): ResolvedTurns {
  // No selector reads a time: any moment serves.
  const facts = describePositions(events, "1970-01-01T00:00:00Z");
  const resolved = resolveBoundRange(facts, selection);
  if (resolved.kind === "invalid") {
    throw new CxcError("invalid-range", resolved.message, {
      hint:
        facts.turnCount === 0
          ? "the conversation has no turns yet"
          : `turns are numbered 1..${facts.turnCount}`,
    });
  }
  if (resolved.kind === "empty") return { start: 0, end: 0 };
  return { start: resolved.span.from.turn, end: resolved.span.to.turn + 1 };
}

/** `fork --first [N]` / `--last [N]`: a bare flag is 1 (jp). */
export function parseForkCount(flag: string, value: string | true): number {
  return value === true ? 1 : parseCount(flag, value);
}

/**
 * jp's time threshold for `fork --from/--until`: a duration ago (`5days`, `2h`), a date
 * (`2026-03-01`, midnight UTC), an RFC 3339 time (core/position/duration.ts, as `compact --from`
 * takes them), or a conversation id (its creation time, which `createdAt` looks up). Returns
 * RFC 3339.
 */
function parseTimeThreshold(
  flag: string,
  text: string,
  now: string,
  createdAt: (id: string) => string,
): string {
  const time = parseTimePoint(text, now);
  if (time.ok) return time.value;
  try {
    return createdAt(text.trim());
  } catch (error) {
    if (CxcError.isInstance(error) && error.code !== "conversation-not-found") throw error;
  }
  throw new CxcError("invalid-range", `invalid ${flag} value '${text}'`, {
    hint: `give a duration ago (${flag} 5days), a date (2026-03-01), an RFC 3339 time, or a conversation id`,
  });
}

/**
 * `--from`/`--until` as a range of the one position algebra (either end may be absent), each end
 * parsed as above: the turns that started at or after `--from` and before `--until`.
 */
export function parseTimeWindow(
  options: { readonly from?: string; readonly until?: string },
  now: string,
  store: { resolveId(target: string): string; readMeta(id: string): { readonly created_at: string } },
): TurnSelection {
  const createdAt = (id: string): string => store.readMeta(store.resolveId(id)).created_at;
  const started = (flag: string, text: string): Bound => ({
    kind: "started",
    time: { at: parseTimeThreshold(flag, text, now, createdAt) },
  });
  return {
    ...(options.from === undefined ? {} : { start: started("--from", options.from) }),
    ...(options.until === undefined ? {} : { end: started("--until", options.until) }),
  };
}
