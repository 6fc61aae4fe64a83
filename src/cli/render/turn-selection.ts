/**
 * The turn selectors shared by `print` and `fork` (and, later, `compact`): `--first N`,
 * `--last N` and `--turn N|A..B|A..|..B|..`. Turn numbers are 1-based on the command line and
 * 0-based in storage; ranges are inclusive. Out-of-range `--turn` endpoints are an error, never
 * clamped (jp's rule): `turn 100 out of range (conversation has 5 turns)`. The grammar and the
 * first/last arithmetic are core's (`splitTurnRange`, `selectTurnSlice`); this layer words the
 * errors for `print` and `fork`.
 */
import { findTurnPastEnd, splitTurnRange } from "../../core/position/cli-bounds.js";
import { selectTurnSlice, type TurnSlice } from "../../core/conversation/fork.js";
import { parseDuration } from "../../core/position/duration.js";
import { CxcError } from "../../errors.js";

/** A parsed selector. `range` endpoints are 1-based and inclusive; a missing end is open. */
export type TurnSelection =
  | { readonly kind: "all" }
  | { readonly kind: "first"; readonly count: number }
  | { readonly kind: "last"; readonly count: number }
  | { readonly kind: "range"; readonly from?: number; readonly to?: number };

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
  if (options.first !== undefined) return { kind: "first", count: parseCount("--first", options.first) };
  if (options.last !== undefined) return { kind: "last", count: parseCount("--last", options.last) };
  if (options.turn !== undefined) return parseTurnRange(options.turn);
  return { kind: "all" };
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

/** `N`, `A..B`, `A..`, `..B` or `..`. */
export function parseTurnRange(text: string): TurnSelection {
  const trimmed = text.trim();
  const ends = splitTurnRange(trimmed);
  if (!ends.ok) {
    const message =
      ends.problem.kind === "zero"
        ? "turn numbers are 1-based; 0 is not a valid turn"
        : `invalid turn number '${ends.problem.text}'`;
    throw new CxcError("invalid-range", message, { hint: RANGE_HINT });
  }
  const { from, to } = ends;
  if (from !== undefined && to !== undefined && from > to) {
    throw new CxcError("invalid-range", `invalid turn range ${trimmed} (the start is after the end)`, {
      hint: RANGE_HINT,
    });
  }
  return {
    kind: "range",
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

/** Resolves a selection against a conversation with `turnCount` turns. */
export function resolveTurnSelection(selection: TurnSelection, turnCount: number): ResolvedTurns {
  switch (selection.kind) {
    case "all":
      return selectTurnSlice(turnCount, {});
    case "first":
      return selectTurnSlice(turnCount, { first: selection.count });
    case "last":
      return selectTurnSlice(turnCount, { last: selection.count });
    case "range": {
      const endpoint = findTurnPastEnd(selection, turnCount);
      if (endpoint !== undefined) {
        throw new CxcError(
          "invalid-range",
          `turn ${endpoint} out of range (conversation has ${turnCount} turn${turnCount === 1 ? "" : "s"})`,
          {
            hint:
              turnCount === 0 ? "the conversation has no turns yet" : `turns are numbered 1..${turnCount}`,
          },
        );
      }
      return { start: (selection.from ?? 1) - 1, end: selection.to ?? turnCount };
    }
  }
}

/** `fork --first [N]` / `--last [N]`: a bare flag is 1 (jp). */
export function parseForkCount(flag: string, value: string | true): number {
  return value === true ? 1 : parseCount(flag, value);
}

/**
 * jp's time threshold for `fork --from/--until`: a duration ago (`5days`, `2h`), a date
 * (`2026-03-01`, midnight UTC), an RFC 3339 time, or a conversation id (its creation time, which
 * `createdAt` looks up). Returns RFC 3339.
 */
export function parseTimeThreshold(
  flag: string,
  text: string,
  now: string,
  createdAt: (id: string) => string,
): string {
  const value = text.trim();
  const duration = parseDuration(value);
  if (duration.ok) return new Date(Date.parse(now) - duration.value).toISOString();
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    return `${value}T00:00:00.000Z`;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]/.test(value) && !Number.isNaN(Date.parse(value))) {
    return new Date(Date.parse(value)).toISOString();
  }
  try {
    return createdAt(value);
  } catch (error) {
    if (CxcError.isInstance(error) && error.code !== "conversation-not-found") throw error;
  }
  throw new CxcError("invalid-range", `invalid ${flag} value '${text}'`, {
    hint: `give a duration ago (${flag} 5days), a date (2026-03-01), an RFC 3339 time, or a conversation id`,
  });
}
