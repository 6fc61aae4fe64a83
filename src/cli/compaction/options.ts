/**
 * From the raw flags of `cxc conversation compact` (as commander hands them over) to what the run
 * needs: the core range overrides, the explicit rules, the note, and which mode (compact, reset,
 * undo a reset). Every malformed value and every forbidden combination is a usage error (exit 2)
 * raised here, before the store is touched, with jp's message or a clearer one.
 *
 * Conflicts follow jp's (docs/compaction-model.md, "Range bounds" and "One compact run"): the policy flags `-r/-t/-s`
 * exclude `-k` in any form; `--reset` excludes every selection, policy, DSL, model and note flag
 * (`--dry-run` is allowed); range flags exclude each other as `findOverrideConflict` lists.
 */
import { parseRuleBound, type RuleBound } from "../../core/position/bounds.js";
import {
  type CliBound,
  parseFromBound,
  parseToBound,
  parseTurnSelector,
} from "../../core/position/cli-bounds.js";
import { describeSpecError, parseCompactSpec, specToRule } from "../../core/compaction/spec.js";
import { parseCompactionIndex } from "../../core/conversation/compactions.js";
import {
  type CompactionOverrides,
  checkKeepAgainstSelection,
  findOverrideConflict,
} from "../../core/compaction/plan.js";
import {
  buildFlagRule,
  type CompactionRule,
  parseToolCallsMode,
  TOOL_CALLS_MODE_CHOICES,
  type ToolCallsMode,
} from "../../core/compaction/rules.js";
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
  readonly note?: string;
  readonly dryRun?: boolean;
  readonly reset?: string | true;
  readonly undoReset?: boolean;
  readonly yes?: boolean;
}

/** The rules a run uses before they are combined with the configured ones. */
export interface ExplicitRules {
  /** `-r/-t/-s` and `-k SPEC` rules, in that order. */
  readonly rules: readonly CompactionRule[];
  /** True when a bare `-k` asked for the configured rules as well. */
  readonly useConfigRules: boolean;
}

/** What one `compact` invocation will do. */
export type CompactRequest =
  | {
      readonly kind: "compact";
      readonly explicit: ExplicitRules;
      readonly overrides: CompactionOverrides;
      readonly model?: string;
      readonly note?: string;
      readonly dryRun: boolean;
    }
  | { readonly kind: "reset"; readonly index?: number; readonly dryRun: boolean }
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
    const other = [...RANGE_FLAGS, ...POLICY_FLAGS, "compact", "model", "note"].find((name) =>
      given(flags, name as keyof CompactFlags),
    );
    if (other !== undefined) throw conflict("--undo-reset", other);
    return { kind: "undo-reset", dryRun };
  }
  if (flags.reset !== undefined) {
    const other = [...RANGE_FLAGS, ...POLICY_FLAGS, "compact", "model", "note"].find((name) =>
      given(flags, name as keyof CompactFlags),
    );
    if (other !== undefined) throw conflict("--reset", other);
    if (flags.reset === true) return { kind: "reset", dryRun };
    const index = parseCompactionIndex(flags.reset);
    if (!index.ok) throw new CxcError("invalid-range", index.message, { hint: RESET_HINT });
    return { kind: "reset", index: index.index, dryRun };
  }
  const policy = POLICY_FLAGS.find((name) => given(flags, name));
  if (policy !== undefined && flags.compact !== undefined) throw conflict(policy, "compact");
  const overrides = parseOverrides(flags, now);
  const problem = findOverrideConflict(overrides) ?? checkKeepAgainstSelection(overrides);
  if (problem !== undefined) throw usageError(problem);
  const note = parseNote(flags.note);
  return {
    kind: "compact",
    explicit: parseExplicitRules(flags),
    overrides,
    ...(flags.model === undefined ? {} : { model: parseModelFlag(flags.model) }),
    ...(note === undefined ? {} : { note }),
    dryRun,
  };
}

const RESET_HINT = "--reset=N takes the 1-based number `cxc conversation show` lists";

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

/** `-r/-t/-s` (one ad-hoc rule) and the `-k` specs. */
export function parseExplicitRules(
  flags: Pick<CompactFlags, "reasoning" | "tools" | "summarize" | "compact">,
): ExplicitRules {
  const rules: CompactionRule[] = [];
  let toolCalls: ToolCallsMode | undefined;
  if (flags.tools !== undefined) {
    const mode =
      flags.tools === true ? ({ ok: true, value: "strip" } as const) : parseToolCallsMode(flags.tools);
    if (!mode.ok) {
      throw new CxcError(
        "invalid-spec",
        `invalid value '${flags.tools}' for --tools: ${TOOL_CALLS_MODE_CHOICES}`,
      );
    }
    toolCalls = mode.value;
  }
  const flagRule = buildFlagRule({
    ...(flags.reasoning ? { reasoning: true } : {}),
    ...(toolCalls === undefined ? {} : { toolCalls }),
    ...(flags.summarize === undefined ? {} : { summarize: flags.summarize }),
  });
  if (flagRule !== undefined) rules.push(flagRule);
  let useConfigRules = false;
  for (const value of flags.compact ?? []) {
    if (value === "") {
      useConfigRules = true;
      continue;
    }
    const spec = parseCompactSpec(value);
    if (!spec.ok) {
      throw new CxcError("invalid-spec", describeSpecError(value, spec.message), {
        hint: "a SPEC is POLICIES[:RANGE], e.g. -k r+t:..-2 or -k s:2..10 (see docs/compaction.md)",
      });
    }
    rules.push(specToRule(spec.value));
  }
  return { rules, useConfigRules };
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

/** `--from 5 --to 2` (or `--from -2 --to -5`, or two times) selects nothing whatever the length. */
function invertedFromTo(from: CliBound | undefined, to: CliBound | undefined): string | undefined {
  if (from === undefined || to === undefined) return undefined;
  if (from.kind === "absolute" && to.kind === "absolute" && from.index > to.index) {
    return `the range is inverted: --from ${from.index + 1} comes after --to ${to.index + 1}`;
  }
  if (from.kind === "from-end" && to.kind === "from-end" && from.offset < to.offset) {
    return `the range is inverted: --from -${from.offset + 1} comes after --to -${to.offset + 1}`;
  }
  if (from.kind === "cutoff" && to.kind === "cutoff" && Date.parse(from.time) > Date.parse(to.time)) {
    return "the range is inverted: the --from time comes after the --to time";
  }
  return undefined;
}

/** The range flags as core overrides; `now` resolves duration cutoffs. */
export function parseOverrides(flags: CompactFlags, now: string): CompactionOverrides {
  const overrides: CompactionOverrides = {};
  if (flags.keepFirst !== undefined)
    overrides.keepFirst = parseBound<RuleBound>(parseRuleBound(flags.keepFirst));
  if (flags.keepLast !== undefined)
    overrides.keepLast = parseBound<RuleBound>(parseRuleBound(flags.keepLast));
  if (flags.from !== undefined) overrides.from = parseBound<CliBound>(parseFromBound(flags.from, now));
  if (flags.to !== undefined) overrides.to = parseBound<CliBound>(parseToBound(flags.to, now));
  const inverted = invertedFromTo(overrides.from, overrides.to);
  if (inverted !== undefined) {
    throw new CxcError("invalid-range", inverted, { hint: "--from names the first turn, --to the last" });
  }
  if (flags.first !== undefined) overrides.first = parseCount("--first", flags.first);
  if (flags.last !== undefined) overrides.last = parseCount("--last", flags.last);
  if (flags.turn !== undefined) {
    const selector = parseBound(parseTurnSelector(flags.turn));
    if (selector.kind === "turns") {
      overrides.turn = {
        ...(selector.from === undefined ? {} : { from: selector.from }),
        ...(selector.to === undefined ? {} : { to: selector.to }),
      };
    }
  }
  return overrides;
}
