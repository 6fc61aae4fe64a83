/**
 * The arguments of `propose_compaction` (docs/review.md): one zod schema, from which the tool's JSON
 * Schema is derived (src/tools/arguments.ts) and by which every field of a call is checked. Pure.
 *
 * Fields are read one by one, so a call with several problems hears of all of them at once;
 * providers in strict modes send `null` for an absent optional field, which means "not given", and
 * some send whole numbers as strings. What depends on the source (turns past its end, cycles a turn
 * does not have, summaries in the way) is checked in review.ts.
 */
import * as z from "zod";
import type { CycleRange } from "../../../core/conversation/cycles.js";
import type { TurnBound } from "../../../core/position/bound.js";
import { type MessagePosition, parseMessagePosition } from "../../../core/position/parse.js";
import { onFirstUse } from "../../../core/zod-schema.js";
import { parseToolCallsMode, type ToolCallsMode } from "../rules.js";

/**
 * An inclusive range of source turns, 1-based, as the tool's arguments and the stored proposal
 * name it (the `[turn N]` markers); with cycles (1-based) it starts or ends inside a turn:
 * `fromCycle` is the first compacted cycle of `fromTurn` (absent: from its start), `toCycle` the
 * last compacted cycle of `toTurn` (absent: to its end).
 */
export interface ReviewTurnRange {
  readonly fromTurn: number;
  readonly toTurn: number;
  readonly fromCycle?: number;
  readonly toCycle?: number;
}

/**
 * A review range as bounds of the one position algebra (0-based; `exact`: a turn the source does
 * not have is an error): the one translation from the review's 1-based numbers, for the checks of
 * a call, the range it covers, and the compaction `--continue` builds (docs/review.md).
 */
export function reviewBounds(range: ReviewTurnRange): { readonly start: TurnBound; readonly end: TurnBound } {
  return {
    start: {
      kind: "turn",
      turn: range.fromTurn - 1,
      ...(range.fromCycle === undefined ? {} : { cycle: range.fromCycle - 1 }),
      exact: true,
    },
    end: {
      kind: "turn",
      turn: range.toTurn - 1,
      ...(range.toCycle === undefined ? {} : { cycle: range.toCycle - 1 }),
      exact: true,
    },
  };
}

/** The raw range (0-based) a review range covers, its cycles included: a compaction's fields. */
export function reviewCycleRange(range: ReviewTurnRange): CycleRange {
  const { start, end } = reviewBounds(range);
  return {
    from: start.turn,
    to: end.turn,
    ...(start.cycle === undefined ? {} : { fromCycle: start.cycle }),
    ...(end.cycle === undefined ? {} : { toCycle: end.cycle }),
  };
}

/** `null` is "not given"; digits in a string are the number. */
function readNumber(value: unknown): unknown {
  if (value === null) return undefined;
  return typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
}

function turnField(name: string, description: string) {
  return z
    .preprocess(
      readNumber,
      z
        .int({
          error: (issue) =>
            issue.input === undefined
              ? `\`${name}\` is required: a source turn number (1-based), as in the [turn N] markers`
              : `\`${name}\` must be a whole turn number, got ${JSON.stringify(issue.input)}`,
        })
        .min(1, {
          error: (issue) => `\`${name}\` must be at least 1 (turns are numbered from 1), got ${issue.input}`,
        }),
    )
    .describe(description);
}

function cycleField(name: string, description: string) {
  const problem = (input: unknown) =>
    `\`${name}\` must be a cycle number (1-based, as in the [turn N, cycle C] markers), got ${JSON.stringify(input)}`;
  return z
    .preprocess(
      readNumber,
      z
        .int({ error: (issue) => problem(issue.input) })
        .min(1, { error: (issue) => problem(issue.input) })
        .optional(),
    )
    .describe(description);
}

const TOOL_CALLS_MODES = ["strip", "strip-requests", "strip-responses", "omit"] as const;

/** The canonical spelling of a tool-call mode or one of its aliases; anything else as it is. */
function readToolCallsMode(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value !== "string") return value;
  const mode = parseToolCallsMode(value.trim());
  return mode.ok ? mode.value : value;
}

/**
 * The schema of a call's arguments (see the module comment), built the first time a call is read
 * or the tool is offered, not when a turn loads this module.
 */
export const proposalArgumentsSchema = onFirstUse(() =>
  z.strictObject({
    from_turn: turnField("from_turn", "First source turn to compact, 1-based: the N of the [turn N] marker."),
    to_turn: turnField(
      "to_turn",
      "Last source turn to compact, inclusive, 1-based. Turns after it stay verbatim.",
    ),
    from_cycle: cycleField(
      "from_cycle",
      "Optional: start inside from_turn, at this cycle (the C of a [turn N, cycle C] marker). The turn's user message and earlier cycles stay.",
    ),
    to_cycle: cycleField(
      "to_cycle",
      "Optional: end inside to_turn, after this cycle (inclusive). The turn's later cycles stay verbatim.",
    ),
    summary: z
      .preprocess(
        (value) => (value === null ? undefined : value),
        z
          .string({ error: "`summary` must be text" })
          .refine((text) => text.trim() !== "", {
            error: "`summary` is empty; write the summary, or leave the field out to compact mechanically",
          })
          .optional(),
      )
      .describe(
        "The complete summary text that replaces the turns. When set, leave reasoning and tool_calls out: a summary replaces everything.",
      ),
    reasoning: z
      .preprocess(
        (value) => (value === null ? undefined : value),
        z
          .literal("strip", {
            error: (issue) => `\`reasoning\` must be "strip" or left out, got ${JSON.stringify(issue.input)}`,
          })
          .optional(),
      )
      .describe("Mechanical compaction without a summary: drop the reasoning of the turns."),
    tool_calls: z
      .preprocess(
        readToolCallsMode,
        z
          .enum(TOOL_CALLS_MODES, {
            error: (issue) =>
              `\`tool_calls\` must be one of ${TOOL_CALLS_MODES.join(", ")}, or left out; got ${JSON.stringify(issue.input)}`,
          })
          .optional(),
      )
      .describe(
        "Mechanical compaction without a summary: strip tool arguments and/or results, or omit the calls.",
      ),
    keep: z
      .preprocess(
        (value) => (value === null ? undefined : value),
        z
          .array(z.union([z.string(), z.number()]), {
            error: (issue) =>
              `\`keep\` must be a list of positions such as ["3", "4.2"], got ${JSON.stringify(issue.input)}`,
          })
          .optional(),
      )
      .describe(
        'Optional: messages every compaction must keep verbatim, as pins: "N" (turn N whole) or "N.C" (cycle C of turn N), 1-based as in the markers. Pins are added with the compaction; none is ever removed.',
      ),
  }),
);

type ProposalFields = z.output<ReturnType<typeof proposalArgumentsSchema>>;

/** The fields of a call that passed their own checks (a field with a problem is absent). */
export interface ReadProposal {
  readonly fromTurn?: number;
  readonly toTurn?: number;
  readonly fromCycle?: number;
  readonly toCycle?: number;
  readonly summary?: string;
  readonly reasoning?: "strip";
  readonly toolCalls?: ToolCallsMode;
  /** Pins to add: 0-based turn and cycle. */
  readonly keep?: readonly MessagePosition[];
}

/** A call's fields as read: what passed, the problem of each field that did not, unknown fields. */
export interface ReadArguments {
  readonly fields: ReadProposal;
  readonly problems: Readonly<Partial<Record<keyof ProposalFields, string>>>;
  /** One line per field the tool does not have. */
  readonly unknown: readonly string[];
}

/** The positions of `keep`, each checked; a bad one is a problem of the field. */
function readKeep(
  values: readonly (string | number)[] | undefined,
  problems: Partial<Record<keyof ProposalFields, string>>,
): MessagePosition[] | undefined {
  if (values === undefined) return undefined;
  const positions: MessagePosition[] = [];
  for (const [index, value] of values.entries()) {
    const parsed = parseMessagePosition(String(value).trim());
    if (parsed.ok) positions.push(parsed.value);
    else problems.keep ??= `\`keep[${index}]\`: ${parsed.message}`;
  }
  return problems.keep === undefined && positions.length > 0 ? positions : undefined;
}

/** Reads a call's fields one by one (see the module comment). */
export function readProposalArguments(argumentsObject: Readonly<Record<string, unknown>>): ReadArguments {
  const { shape } = proposalArgumentsSchema();
  // The fields `propose_compaction` accepts.
  const accepted = Object.keys(shape) as (keyof ProposalFields)[];
  const unknown = Object.keys(argumentsObject)
    .filter((key) => !(accepted as string[]).includes(key))
    .map((key) => `unknown field \`${key}\`; the fields are ${accepted.join(", ")}`);
  const read: Record<string, unknown> = {};
  const problems: Partial<Record<keyof ProposalFields, string>> = {};
  for (const field of accepted) {
    const parsed = shape[field].safeParse(argumentsObject[field]);
    if (parsed.success) read[field] = parsed.data;
    else problems[field] = parsed.error.issues[0]!.message;
  }
  const value = <T>(field: keyof ProposalFields) => read[field] as T | undefined;
  const fields: Record<keyof ReadProposal, unknown> = {
    fromTurn: value<number>("from_turn"),
    toTurn: value<number>("to_turn"),
    fromCycle: value<number>("from_cycle"),
    toCycle: value<number>("to_cycle"),
    summary: value<string>("summary"),
    reasoning: value<"strip">("reasoning"),
    toolCalls: value<ToolCallsMode>("tool_calls"),
    keep: readKeep(value<(string | number)[]>("keep"), problems),
  };
  return {
    fields: Object.fromEntries(
      Object.entries(fields).filter(([, field]) => field !== undefined),
    ) as ReadProposal,
    problems,
    unknown,
  };
}
