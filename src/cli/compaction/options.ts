/**
 * From the raw flags of `cxc conversation compact` (as commander hands them over) to what the run
 * needs: the range the flags give every rule, the explicit rules, the note, and which mode
 * (compact, reset, undo a reset). Every malformed value and every forbidden combination is a usage
 * error (exit 2) raised here, before the store is touched, with jp's message or a clearer one.
 *
 * Conflicts follow jp's (docs/compaction-model.md, "Range bounds" and "One compact run"): the policy flags `-r/-t/-s`
 * exclude `-k` in any form; `--reset` excludes every selection, policy, DSL, model and note flag
 * (`--dry-run` is allowed); range flags exclude each other as `RANGE_CONFLICTS` lists.
 *
 * The range flags are read into bounds of the one position algebra (core/position/) and decided
 * here into one range that replaces, side by side, the range of every rule of the run
 * (`applyRange`): the planner knows nothing of flags.
 */
import type { ExplicitRules } from "../../compaction/core/request.js";
import { ruleFlags } from "../../compaction/environment.js";
import { parseCompactionIndex } from "../../core/conversation/compactions.js";
import type { Bound, BoundRange } from "../../core/position/bound.js";
import {
  firstTurns,
  lastTurns,
  parseFlagBound,
  parseKeep,
  parseTurnSpan,
} from "../../core/position/parse.js";
import { CxcError, usageError } from "../../errors.js";

/** The longest `--note` a compaction records (docs/file-format.md). */
export const MAX_NOTE_LENGTH = 200;

/** The flags of `compact` as commander parses them (optional values arrive as `true`). */
export interface CompactFlags {
  readonly keepFirst?: string;
  readonly keepLast?: string;
  readonly from?: string;
  readonly to?: string;
  readonly first?: string | true;
  readonly last?: string | true;
  readonly turn?: string;
  readonly reasoning?: boolean;
  readonly tools?: string | true;
  readonly summarize?: string | true;
  /** One entry per `-k`; a bare `-k` (or `-k=`) is the empty string. */
  readonly compact?: readonly string[];
  readonly model?: string;
  /** Ask for the provider's own summary (Anthropic's on-demand compaction). */
  readonly native?: boolean;
  readonly note?: string;
  readonly dryRun?: boolean;
  readonly reset?: string | true;
  readonly undoReset?: boolean;
  readonly yes?: boolean;
}

/** What one `compact` invocation will do. */
export type CompactRequest =
  | {
      readonly kind: "compact";
      readonly explicit: ExplicitRules;
      /** The range the flags give every rule (a side the flags leave alone is absent). */
      readonly range: BoundRange;
      readonly model?: string;
      readonly native?: boolean;
      readonly note?: string;
      readonly dryRun: boolean;
    }
  | { readonly kind: "reset"; readonly index?: number; readonly last?: number; readonly dryRun: boolean }
  | { readonly kind: "undo-reset"; readonly dryRun: boolean };

/** `--flag` spellings for messages, keyed by the flags' property names. */
export const FLAG_NAMES: Readonly<Record<string, string>> = {
  keepFirst: "--keep-first",
  keepLast: "--keep-last",
  from: "--from",
  to: "--to",
  first: "--first",
  last: "--last",
  turn: "--turn",
  reasoning: "--reasoning",
  tools: "--tools",
  summarize: "--summarize",
  compact: "--compact",
  model: "--model",
  native: "--native",
  note: "--note",
  dryRun: "--dry-run",
  reset: "--reset",
  undoReset: "--undo-reset",
  interactive: "--interactive",
  continue: "--continue",
  abort: "--abort",
};

export const RANGE_FLAGS = ["keepFirst", "keepLast", "from", "to", "first", "last", "turn"] as const;
const POLICY_FLAGS = ["reasoning", "tools", "summarize"] as const;

function given(flags: CompactFlags, name: keyof CompactFlags): boolean {
  const value = flags[name];
  return value !== undefined && value !== false;
}

function conflict(left: string, right: string): CxcError {
  return usageError(
    `${FLAG_NAMES[left] ?? left} cannot be used with ${FLAG_NAMES[right] ?? right}`,
    "run `cxc conversation compact --help` for the flags that go together",
  );
}

/** Parses and checks the flags of one `compact` invocation (see the module comment). */
export function parseCompactFlags(flags: CompactFlags, now: string): CompactRequest {
  const dryRun = flags.dryRun === true;
  if (flags.undoReset) {
    if (flags.reset !== undefined) throw usageError("--undo-reset cannot be used with --reset");
    const other = [...RANGE_FLAGS, ...POLICY_FLAGS, "compact", "model", "native", "note"].find((name) =>
      given(flags, name as keyof CompactFlags),
    );
    if (other !== undefined) throw conflict("--undo-reset", other);
    return { kind: "undo-reset", dryRun };
  }
  if (flags.reset !== undefined) {
    const other = [...RANGE_FLAGS, ...POLICY_FLAGS, "compact", "model", "native", "note"].find((name) =>
      given(flags, name as keyof CompactFlags),
    );
    if (other !== undefined) throw conflict("--reset", other);
    if (flags.reset === true) return { kind: "reset", dryRun };
    const index = parseCompactionIndex(flags.reset);
    if (!index.ok) throw new CxcError("invalid-range", index.message, { hint: RESET_HINT });
    return {
      kind: "reset",
      index: index.index,
      ...(index.last === undefined ? {} : { last: index.last }),
      dryRun,
    };
  }
  const policy = POLICY_FLAGS.find((name) => given(flags, name));
  if (policy !== undefined && flags.compact !== undefined) throw conflict(policy, "compact");
  const range = parseRangeFlags(flags, now);
  const note = parseNote(flags.note);
  return {
    kind: "compact",
    explicit: ruleFlags(flags),
    range,
    ...(flags.model === undefined ? {} : { model: parseModelFlag(flags.model) }),
    ...(flags.native === true ? { native: true } : {}),
    ...(note === undefined ? {} : { note }),
    dryRun,
  };
}

const RESET_HINT =
  "--reset=N takes the 1-based number `cxc conversation show` lists (--reset=A..B: those from A to B)";

function parseNote(note: string | undefined): string | undefined {
  if (note === undefined) return undefined;
  const trimmed = note.trim();
  if (trimmed.length === 0) throw usageError("--note needs a sentence saying why");
  if (trimmed.length > MAX_NOTE_LENGTH) {
    throw usageError(
      `--note is ${trimmed.length} characters long; a note holds at most ${MAX_NOTE_LENGTH}`,
      "say why in one sentence",
    );
  }
  return trimmed;
}

function parseModelFlag(model: string): string {
  if (model.trim().length === 0) throw usageError("--model needs a model id, e.g. -m builtin/digest");
  return model.trim();
}

function parseCount(flag: string, value: string | true): number {
  if (value === true) return 1;
  if (!/^\d+$/.test(value.trim())) {
    throw new CxcError(
      "invalid-range",
      `invalid value '${value}' for ${flag}: expected a whole number of turns`,
    );
  }
  return Number(value.trim());
}

function parseBound<T>(parsed: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!parsed.ok) throw new CxcError("invalid-bound", parsed.message);
  return parsed.value;
}

/** The range flags that cannot be combined (jp's clap conflicts), in the order they are checked. */
const RANGE_CONFLICTS: readonly (readonly [keyof CompactFlags, keyof CompactFlags])[] = [
  ["keepFirst", "from"],
  ["keepFirst", "last"],
  ["keepFirst", "turn"],
  ["keepLast", "to"],
  ["keepLast", "first"],
  ["keepLast", "turn"],
  ["first", "last"],
  ["first", "turn"],
  ["first", "from"],
  ["first", "to"],
  ["last", "turn"],
  ["last", "from"],
  ["last", "to"],
  ["turn", "from"],
  ["turn", "to"],
];

/** `-N` as `--from` / `--to` read it, for messages. */
function fromEndText(bound: Bound, side: "start" | "end"): string | undefined {
  if (bound.kind !== "count" || bound.unit !== "turns" || bound.from !== "end") return undefined;
  return `-${side === "start" ? bound.count : bound.count + 1}`;
}

/** `--from 5 --to 2` (or `--from -2 --to -5`, or two times) selects nothing whatever the length. */
function invertedFromTo(from: Bound | undefined, to: Bound | undefined): string | undefined {
  if (from === undefined || to === undefined) return undefined;
  if (from.kind === "turn" && to.kind === "turn" && from.cycle === undefined && to.cycle === undefined) {
    if (from.turn > to.turn) {
      return `the range is inverted: --from ${from.turn + 1} comes after --to ${to.turn + 1}`;
    }
  }
  const fromEnd = fromEndText(from, "start");
  const toEnd = fromEndText(to, "end");
  if (fromEnd !== undefined && toEnd !== undefined && Number(fromEnd) > Number(toEnd)) {
    return `the range is inverted: --from ${fromEnd} comes after --to ${toEnd}`;
  }
  if (from.kind === "time" && to.kind === "time" && "at" in from.time && "at" in to.time) {
    if (Date.parse(from.time.at) > Date.parse(to.time.at)) {
      return "the range is inverted: the --from time comes after the --to time";
    }
  }
  return undefined;
}

/** jp's `--keep-first K --first M` (K > M) and `--keep-last K --last M` checks. */
function checkKeepAgainstSelection(flags: CompactFlags, keepFirst?: Bound, keepLast?: Bound): void {
  const checks = [
    ["keep-first", keepFirst, "first", flags.first],
    ["keep-last", keepLast, "last", flags.last],
  ] as const;
  for (const [keepFlag, keep, selectFlag, selected] of checks) {
    if (keep?.kind !== "count" || keep.unit !== "turns" || selected === undefined) continue;
    const count = parseCount(`--${selectFlag}`, selected);
    if (keep.count > count) {
      throw usageError(
        `--${keepFlag} ${keep.count} is greater than --${selectFlag} ${count}: nothing would remain to compact`,
      );
    }
  }
}

/**
 * The range flags as the one range every rule takes (see the module comment). Precedence, per
 * side: `--keep-first`/`--keep-last`, then the selector (`--turn`, `--last`, `--first`), then
 * `--from`/`--to`; the conflicts above leave at most one of them on a side. `now` reads durations.
 */
export function parseRangeFlags(flags: CompactFlags, now: string): BoundRange {
  const conflict = RANGE_CONFLICTS.find(([left, right]) => given(flags, left) && given(flags, right));
  if (conflict !== undefined) {
    throw usageError(`${FLAG_NAMES[conflict[0]]} cannot be used with ${FLAG_NAMES[conflict[1]]}`);
  }
  const keepFirst =
    flags.keepFirst === undefined ? undefined : parseBound(parseKeep(flags.keepFirst, "start"));
  const keepLast = flags.keepLast === undefined ? undefined : parseBound(parseKeep(flags.keepLast, "end"));
  const from = flags.from === undefined ? undefined : parseBound(parseFlagBound(flags.from, "start", now));
  const to = flags.to === undefined ? undefined : parseBound(parseFlagBound(flags.to, "end", now));
  const inverted = invertedFromTo(from, to);
  if (inverted !== undefined) {
    throw new CxcError("invalid-range", inverted, { hint: "--from names the first turn, --to the last" });
  }
  checkKeepAgainstSelection(flags, keepFirst, keepLast);
  let selected: BoundRange | undefined;
  if (flags.turn !== undefined) selected = parseBound(parseTurnSpan(flags.turn));
  else if (flags.last !== undefined) selected = lastTurns(parseCount("--last", flags.last));
  else if (flags.first !== undefined) selected = firstTurns(parseCount("--first", flags.first));
  const start = keepFirst ?? selected?.start ?? from;
  const end = keepLast ?? selected?.end ?? to;
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}
