/**
 * The arguments of the assistant's `compact` tool (docs/compact-tool.md): their schema and the cross-field
 * checks that turn them into validated rules, with the keep_last clamp and the note cut. Pure.
 * Every problem is returned as a message for the model, never thrown.
 */
import * as z from "zod";
import { describeIssues, onFirstUse } from "../../../core/zod-schema.js";
import type { ToolCallsMode } from "../rules.js";

/** The longest note kept; longer notes are cut (with `…`), never refused. */
export const NOTE_MAX_LENGTH = 200;

const TOOL_CALLS_MODES = ["strip", "strip-requests", "strip-responses", "omit"] as const;

/** Providers in strict modes send `null` for an absent optional field; it means "not given". */
const optional = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());

const ruleArgumentsSchema = () =>
  z.strictObject({
    keep_first: optional(z.number().int().nonnegative()).describe(
      "Leave this many opening turns untouched (default 0). Not with after_quote.",
    ),
    keep_last: optional(z.number().int()).describe(
      "Leave this many recent turns untouched (default and minimum 1). Not with before_quote.",
    ),
    before_quote: optional(z.string()).describe(
      "Verbatim text from one turn; the range ends at the turn before it (in this turn: at the step before it).",
    ),
    after_quote: optional(z.string()).describe(
      "Verbatim text from one turn; the range starts at the turn after it (in this turn: at the next step).",
    ),
    reasoning: optional(z.literal("strip")).describe("Drop the reasoning in the range."),
    tool_calls: optional(z.enum(TOOL_CALLS_MODES)).describe(
      "strip: empty the arguments and replace results with a one-line stub; strip-requests / " +
        "strip-responses: only one side; omit: remove the calls entirely.",
    ),
    summary: optional(z.string()).describe("Replace every turn in the range with this text, written by you."),
    note: z
      .string()
      .describe(`One sentence on why (at most ${NOTE_MAX_LENGTH} characters; longer notes are cut).`),
  });

/**
 * The `compact` tool's arguments as the model sends them (before the cross-field checks); the JSON
 * Schema the model is shown is derived from it (src/tools/arguments.ts).
 */
export const compactToolArgumentsSchema = onFirstUse(() =>
  z.strictObject({
    rules: z
      .array(ruleArgumentsSchema())
      .min(1)
      .describe(
        "Compaction rules, applied in order. Each needs a note and at least one of summary, reasoning, tool_calls.",
      ),
  }),
);

/** One validated rule. */
export interface CompactToolRule {
  readonly keepFirst?: number;
  /** At least 1. */
  readonly keepLast: number;
  /** True when the model asked for fewer than 1 recent turns kept. */
  readonly keepLastRaised: boolean;
  readonly beforeQuote?: string;
  readonly afterQuote?: string;
  readonly reasoning?: "strip";
  readonly toolCalls?: ToolCallsMode;
  /** The replacement text, as given. */
  readonly summary?: string;
  /** At most `NOTE_MAX_LENGTH` characters. */
  readonly note: string;
  readonly noteCut: boolean;
}

/** A validated call, or the message that tells the model what to fix. */
export type ParsedCompactArguments =
  | { readonly ok: true; readonly rules: readonly CompactToolRule[] }
  | { readonly ok: false; readonly message: string };

/** Cuts a note to `NOTE_MAX_LENGTH` characters, ending in `…` when cut. */
export function cutNote(note: string): string {
  const trimmed = note.trim();
  if (trimmed.length <= NOTE_MAX_LENGTH) return trimmed;
  let kept = trimmed.slice(0, NOTE_MAX_LENGTH - 1);
  // Never leave half of a surrogate pair behind.
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept.trimEnd()}…`;
}

type RuleArguments = z.infer<ReturnType<typeof ruleArgumentsSchema>>;

function checkRule(rule: RuleArguments, index: number): string | CompactToolRule {
  const where = `rules[${index}]`;
  if (rule.keep_first !== undefined && rule.after_quote !== undefined) {
    return `${where}: give either keep_first or after_quote (both set where the range starts)`;
  }
  if (rule.keep_last !== undefined && rule.before_quote !== undefined) {
    return `${where}: give either keep_last or before_quote (both set where the range ends)`;
  }
  if (rule.reasoning === undefined && rule.tool_calls === undefined && rule.summary === undefined) {
    return `${where}: the rule does nothing; give at least one of summary, reasoning, tool_calls`;
  }
  if (rule.summary !== undefined && rule.summary.trim().length === 0) {
    return `${where}.summary is empty; write the replacement text, or leave summary out`;
  }
  if (rule.note.trim().length === 0) return `${where}.note is empty; say in one sentence why`;
  for (const field of ["before_quote", "after_quote"] as const) {
    if (rule[field] !== undefined && rule[field].trim().length === 0) return `${where}.${field} is empty`;
  }
  const note = cutNote(rule.note);
  const requestedKeepLast = rule.keep_last ?? 1;
  return {
    ...(rule.keep_first === undefined ? {} : { keepFirst: rule.keep_first }),
    keepLast: Math.max(1, requestedKeepLast),
    keepLastRaised: requestedKeepLast < 1,
    ...(rule.before_quote === undefined ? {} : { beforeQuote: rule.before_quote }),
    ...(rule.after_quote === undefined ? {} : { afterQuote: rule.after_quote }),
    ...(rule.reasoning === undefined ? {} : { reasoning: rule.reasoning }),
    ...(rule.tool_calls === undefined ? {} : { toolCalls: rule.tool_calls }),
    ...(rule.summary === undefined ? {} : { summary: rule.summary }),
    note,
    noteCut: note !== rule.note.trim(),
  };
}

/** Validates the model's arguments; every problem found is listed so one retry can fix them all. */
export function parseCompactArguments(value: unknown): ParsedCompactArguments {
  const parsed = compactToolArgumentsSchema().safeParse(value);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    return { ok: false, message: `Invalid compact arguments:\n- ${problems.join("\n- ")}` };
  }
  const rules: CompactToolRule[] = [];
  const problems: string[] = [];
  parsed.data.rules.forEach((rule, index) => {
    const checked = checkRule(rule, index);
    if (typeof checked === "string") problems.push(checked);
    else rules.push(checked);
  });
  if (problems.length > 0)
    return { ok: false, message: `Invalid compact arguments:\n- ${problems.join("\n- ")}` };
  return { ok: true, rules };
}
