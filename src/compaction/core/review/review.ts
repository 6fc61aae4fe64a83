/**
 * The rules of interactive compaction review (docs/review.md; `compact --interactive/--continue/--abort`).
 * Pure: functions of plain data; forking, archiving and switching the active conversation live in
 * the shell (src/cli/compaction/review*.ts).
 *
 * - One open review per source (open-reviews.ts): a live (not archived) conversation whose review
 *   record names the source blocks a second review and every compaction write to the source.
 * - A proposal is one `propose_compaction(from_turn, to_turn, from_cycle, to_cycle, summary,
 *   reasoning, tool_calls)` call. Turn numbers are 1-based source turns, the numbers of the
 *   `[turn N]` markers; the optional cycles (1-based, the `[turn N, cycle C]` markers) start or end
 *   the range inside a turn (docs/review.md). They become 0-based only when `--continue` builds the
 *   `compaction` event.
 * - Every call is validated against the source as it stands (bounds, order, policy values, dead
 *   fields), and a summary range that partially overlaps an existing summary is grown at once, so
 *   the range in the tool result is final: it never widens at apply time.
 * - The current proposal is the latest successful call; `--continue` re-validates it, and a re-run
 *   after a crash between apply and archive is recognised by the source's latest compaction being
 *   that proposal (an open review admits no other compaction writes, so nothing else wrote it).
 */
import { describePin, planPin } from "../../../core/conversation/pins.js";
import type { MessagePosition } from "../../../core/position/parse.js";
import type { Keeping } from "../keeping.js";
import { activeCompactions } from "../../../core/conversation/compactions.js";
import { type ConfigTable, isConfigTable, mergeConfigLayers } from "../../../core/config.js";
import {
  type CycleSpan,
  compactionPolicies,
  compactionSpan,
  comparePositions,
  HEAD,
  describeCycles,
  layoutCycles,
  TURN_END,
} from "../../../core/conversation/cycles.js";
import type {
  Compaction,
  ConversationEvent,
  NativeSummary,
  ToolCallRequest,
  TurnEvent,
} from "../../../core/conversation/events.js";
import { describeCompaction, describeOwnTurnRange, describeSpan } from "../../../core/present/labels.js";
import type { ReviewRefusal } from "./open-reviews.js";
import {
  boundProblem,
  describeCycleOutOfRange,
  describePositions,
  type PositionFacts,
  spanOfTurnBounds,
} from "../../../core/position/bound.js";
import { fitSummary, summarySpansOf, suppliedPiece } from "../overlap.js";
import { type CompactionPlan, planCompaction } from "../plan.js";
import {
  type ReadArguments,
  type ReadProposal,
  readProposalArguments,
  type ReviewTurnRange,
  reviewBounds,
  reviewCycleRange,
} from "./proposal-arguments.js";
import { type ToolCallsMode, toolCallsPolicyFor } from "../rules.js";

/** Review ranges name no time: any moment serves their checks. */
const NO_TIME = "1970-01-01T00:00:00Z";

/** The tool's name, as the model and the configuration spell it. */
export const PROPOSE_COMPACTION_TOOL_NAME = "propose_compaction";

export { proposalArgumentsSchema } from "./proposal-arguments.js";

export type { ReviewTurnRange } from "./proposal-arguments.js";

/** A validated proposal. Turns are 1-based source turns; the range is final (already grown). */
export interface ReviewProposal extends ReviewTurnRange {
  /** The range as the call asked for it, before summary-overlap growth. */
  readonly requested: ReviewTurnRange;
  readonly summary?: string;
  readonly reasoning?: "strip";
  readonly toolCalls?: ToolCallsMode;
  /** Pins added with the compaction (0-based turn and cycle); a review never removes one. */
  readonly keep?: readonly MessagePosition[];
}

/** The conversation a proposal is checked against. */
export type ProposalSource =
  /** The review records no source: this is not a review conversation. */
  | { readonly kind: "none" }
  /** The recorded source no longer exists. */
  | { readonly kind: "missing"; readonly id: string }
  | { readonly kind: "found"; readonly id: string; readonly events: readonly ConversationEvent[] };

/** The outcome of validating one call. */
export type ProposalValidation =
  | {
      readonly ok: true;
      readonly proposal: ReviewProposal;
      /** The opening proposal only: the provider's own summary it drafted (docs/native-compaction.md). */
      readonly native?: NativeSummary;
      /** Turns of the source when it was validated. */
      readonly turnCount: number;
      /** Existing summaries the range grew over (1-based). */
      readonly grownOver: readonly ReviewTurnRange[];
    }
  | { readonly ok: false; readonly message: string };

export {
  checkNoOpenReview,
  findOpenReviews,
  type ReviewRecord,
  type ReviewRefusal,
} from "./open-reviews.js";

// ---------------------------------------------------------------------------------------------
// Validating a call

/** The policies of a call, as read. */
type ReadPolicies = Pick<ReadProposal, "summary" | "reasoning" | "toolCalls">;

function checkPolicyCombination(policies: ReadPolicies, problems: string[]): void {
  if (
    policies.summary !== undefined &&
    (policies.reasoning !== undefined || policies.toolCalls !== undefined)
  ) {
    const dead = [policies.reasoning && "`reasoning`", policies.toolCalls && "`tool_calls`"].filter(Boolean);
    problems.push(
      `a \`summary\` replaces the turns entirely, so ${dead.join(" and ")} would change nothing; ` +
        "drop it, or drop `summary` for a mechanical compaction",
    );
  }
  if (
    policies.summary === undefined &&
    policies.reasoning === undefined &&
    policies.toolCalls === undefined
  ) {
    problems.push("the proposal changes nothing: give a `summary`, or `reasoning` and/or `tool_calls`");
  }
}

function refuseSource(source: Exclude<ProposalSource, { kind: "found" }>): ProposalValidation {
  return source.kind === "none"
    ? {
        ok: false,
        message:
          "this conversation records no source: it is not a compaction review, so there is nothing to compact; " +
          "propose_compaction works only in a review started with `cxc conversation compact --interactive`",
      }
    : {
        ok: false,
        message: `the source conversation ${source.id} no longer exists; close the review with \`cxc conversation compact --abort\``,
      };
}

/**
 * A span as a review range (1-based). A range from the start of a turn that ends at a turn's last
 * cycle ends with the turn; one from a cycle names its last cycle (the event records it).
 */
function rangeOfSpan(span: CycleSpan, cycleCounts: readonly number[]): ReviewTurnRange {
  const last = cycleCounts[span.to.turn] ?? 0;
  const toCycle = span.to.cycle === TURN_END ? last - 1 : span.to.cycle;
  const fromCycle = span.from.cycle === HEAD ? undefined : span.from.cycle + 1;
  const named = fromCycle !== undefined ? toCycle >= 0 : toCycle + 1 < last;
  return {
    fromTurn: span.from.turn + 1,
    toTurn: span.to.turn + 1,
    ...(fromCycle === undefined ? {} : { fromCycle }),
    ...(named ? { toCycle: toCycle + 1 } : {}),
  };
}

/** The cycles asked for, checked against the turns' cycle counts; a turn's last cycle ends the turn. */
function readCycles(
  read: ReadArguments,
  range: ReviewTurnRange,
  facts: PositionFacts,
  problems: string[],
): { fromCycle?: number; toCycle?: number } {
  for (const field of ["from_cycle", "to_cycle"] as const) {
    const problem = read.problems[field];
    if (problem !== undefined) problems.push(problem);
  }
  let fromCycle = read.fields.fromCycle;
  let toCycle = read.fields.toCycle;
  const bounds = reviewBounds({
    ...range,
    ...(fromCycle === undefined ? {} : { fromCycle }),
    ...(toCycle === undefined ? {} : { toCycle }),
  });
  for (const [name, bound] of [
    ["from_cycle", bounds.start],
    ["to_cycle", bounds.end],
  ] as const) {
    // The one resolver's check, the field named.
    const problem = boundProblem(facts, bound);
    if (problem?.kind === "cycle") {
      problems.push(
        `\`${name}\`: ${describeCycleOutOfRange(problem.turn, problem.cycleCount, problem.cycle)}`,
      );
      if (name === "from_cycle") fromCycle = undefined;
      else toCycle = undefined;
    }
  }
  if (
    fromCycle !== undefined &&
    toCycle !== undefined &&
    range.fromTurn === range.toTurn &&
    fromCycle > toCycle
  ) {
    problems.push(
      `\`from_cycle\` (${fromCycle}) is after \`to_cycle\` (${toCycle}); the range must run forwards`,
    );
  }
  // A range from the start of a turn that ends at the turn's last cycle ends with the turn; one
  // from a cycle always names its last cycle (the event records it).
  const lastOfTo = facts.cycles().cycleCounts[bounds.end.turn] ?? 0;
  if (fromCycle === undefined && toCycle === lastOfTo) toCycle = undefined;
  if (fromCycle !== undefined && toCycle === undefined) {
    if (lastOfTo > 0) toCycle = lastOfTo;
    else problems.push(`turn ${range.toTurn} has no cycle yet, so a range from a cycle cannot end in it`);
  }
  return {
    ...(fromCycle === undefined ? {} : { fromCycle }),
    ...(toCycle === undefined ? {} : { toCycle }),
  };
}

/** The positions (0-based) a review range covers. */
export function reviewRangeSpan(range: ReviewTurnRange): CycleSpan {
  const { start, end } = reviewBounds(range);
  return spanOfTurnBounds(start, end);
}

/** A review range as the summary check names it: `turns 1..17`, or `turn 4, cycles 1..37`. */
export function describeReviewRange(range: ReviewTurnRange): string {
  if (hasCycles(range)) return describeSpan(reviewRangeSpan(range));
  return `turns ${range.fromTurn}..${range.toTurn}`;
}

/** True when a review range starts or ends inside a turn. */
function hasCycles(range: ReviewTurnRange): boolean {
  return range.fromCycle !== undefined || range.toCycle !== undefined;
}

/**
 * The final range of a summary: grown over the summaries it splits (compaction/core/overlap.ts),
 * then its one range; and the summaries it grew over. The result shows the final range, so it
 * never widens at apply time.
 */
function finalSummaryRange(
  events: readonly ConversationEvent[],
  requested: ReviewTurnRange,
  problems: string[],
): { final: ReviewTurnRange; grownOver: ReviewTurnRange[] } | undefined {
  const cycles = describeCycles(events);
  const span = reviewRangeSpan(requested);
  // Ending at a turn's last cycle is ending with the turn, the conversation's last turn included.
  const endsWithTurn =
    requested.toCycle !== undefined && requested.toCycle >= (cycles.cycleCounts[span.to.turn] ?? 0);
  const asked = endsWithTurn ? { from: span.from, to: { turn: span.to.turn, cycle: TURN_END } } : span;
  const fit = fitSummary(asked, summarySpansOf(events), "grow");
  if (fit.kind === "conflict") {
    problems.push(fit.message);
    return undefined;
  }
  const grownOver = fit.grownOver.map((summary) => rangeOfSpan(summary, cycles.cycleCounts));
  if (fit.span.from.cycle === HEAD && fit.span.to.cycle === TURN_END) {
    return { final: { fromTurn: fit.span.from.turn + 1, toTurn: fit.span.to.turn + 1 }, grownOver };
  }
  const piece = suppliedPiece(cycles, fit.span);
  if ("problem" in piece) {
    problems.push(piece.problem);
    return undefined;
  }
  const final = rangeOfSpan(
    {
      from: { turn: piece.from, cycle: piece.fromCycle ?? HEAD },
      to: { turn: piece.to, cycle: piece.toCycle ?? TURN_END },
    },
    cycles.cycleCounts,
  );
  return { final, grownOver };
}

/**
 * Validates a `propose_compaction` call against the source as it stands. Every problem found is
 * reported at once (one per line), so the model can fix them in one go.
 */
export function validateProposal(
  argumentsObject: Readonly<Record<string, unknown>>,
  source: ProposalSource,
): ProposalValidation {
  return validateReadProposal(readProposalArguments(argumentsObject), source);
}

/** `validateProposal` of a call's fields as the tool's check read them (proposal-arguments.ts). */
export function validateReadProposal(read: ReadArguments, source: ProposalSource): ProposalValidation {
  if (source.kind !== "found") return refuseSource(source);
  const problems: string[] = [...read.unknown];
  for (const field of ["from_turn", "to_turn"] as const) {
    const problem = read.problems[field];
    if (problem !== undefined) problems.push(problem);
  }
  let fromTurn = read.fields.fromTurn;
  let toTurn = read.fields.toTurn;
  const facts = describePositions(source.events, NO_TIME);
  const turnCount = facts.turnCount;
  if (turnCount === 0) return { ok: false, message: "the conversation under review has no turns to compact" };
  for (const [name, value] of [
    ["from_turn", fromTurn],
    ["to_turn", toTurn],
  ] as const) {
    if (value === undefined) continue;
    // The one resolver's check, in the review's wording (docs/review.md): "the conversation has
    // 20 turns, `to_turn` was 25".
    const { start } = reviewBounds({ fromTurn: value, toTurn: value });
    if (boundProblem(facts, start)?.kind === "turn") {
      problems.push(
        `the conversation has ${turnCount} ${turnCount === 1 ? "turn" : "turns"}, \`${name}\` was ${value}`,
      );
      if (name === "from_turn") fromTurn = undefined;
      else toTurn = undefined;
    }
  }
  if (fromTurn !== undefined && toTurn !== undefined && fromTurn > toTurn) {
    problems.push(
      `\`from_turn\` (${fromTurn}) is after \`to_turn\` (${toTurn}); the range must run forwards`,
    );
  }
  const cycles =
    fromTurn !== undefined && toTurn !== undefined
      ? readCycles(read, { fromTurn, toTurn }, facts, problems)
      : {};
  for (const field of ["summary", "reasoning", "tool_calls", "keep"] as const) {
    const problem = read.problems[field];
    if (problem !== undefined) problems.push(problem);
  }
  for (const [index, position] of (read.fields.keep ?? []).entries()) {
    const pin = planPin(source.events, position);
    if (!pin.ok) problems.push(`\`keep[${index}]\`: ${pin.message}`);
  }
  const { summary, reasoning, toolCalls } = read.fields;
  const policies: ReadPolicies = {
    ...(summary === undefined ? {} : { summary }),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(toolCalls === undefined ? {} : { toolCalls }),
  };
  checkPolicyCombination(policies, problems);
  if (problems.length > 0 || fromTurn === undefined || toTurn === undefined) {
    return { ok: false, message: problems.join("\n") };
  }
  const requested: ReviewTurnRange = { fromTurn, toTurn, ...cycles };
  const placed =
    policies.summary === undefined
      ? { final: requested, grownOver: [] }
      : finalSummaryRange(source.events, requested, problems);
  if (placed === undefined) return { ok: false, message: problems.join("\n") };
  const keep = read.fields.keep === undefined ? {} : { keep: read.fields.keep };
  return {
    ok: true,
    proposal: { ...placed.final, requested, ...policies, ...keep },
    turnCount,
    grownOver: placed.grownOver,
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** `turns 4..4`, `turns 1..17`, or a cycle range: `turn 4, cycles 1..37`. */
function describeTurns(range: ReviewTurnRange): string {
  if (hasCycles(range)) return describeSpan(reviewRangeSpan(range));
  return describeOwnTurnRange(range.fromTurn, range.toTurn);
}

/** `summarize`, or the mechanical policies (`strip reasoning + strip tool calls`). */
export function describeProposalPolicy(
  proposal: Pick<ReviewProposal, "summary" | "reasoning" | "toolCalls">,
): string {
  if (proposal.summary !== undefined) return "summarize";
  const parts: string[] = [];
  if (proposal.reasoning !== undefined) parts.push("strip reasoning");
  const toolLabels: Record<ToolCallsMode, string> = {
    strip: "strip tool calls",
    "strip-requests": "strip tool requests",
    "strip-responses": "strip tool responses",
    omit: "omit tool calls",
  };
  if (proposal.toolCalls !== undefined) parts.push(toolLabels[proposal.toolCalls]);
  return parts.join(" + ");
}

/** `Proposed: compact turns 1..17 of 20 (summarize)`; without `turnCount`, no `of N`. */
export function renderProposalLine(proposal: ReviewProposal, turnCount?: number): string {
  const of = turnCount === undefined || hasCycles(proposal) ? "" : ` of ${turnCount}`;
  const keep =
    proposal.keep === undefined
      ? ""
      : `; keep verbatim: ${proposal.keep.map((position) => describePin(position)).join("; ")}`;
  return `Proposed: compact ${describeTurns(proposal)}${of} (${describeProposalPolicy(proposal)})${keep}`;
}

/** The tool result of a valid call: the proposal as recorded, and any growth it underwent. */
export function renderProposalResult(validation: Extract<ProposalValidation, { ok: true }>): string {
  const { proposal, turnCount, grownOver } = validation;
  const lines = [renderProposalLine(proposal, turnCount)];
  if (grownOver.length > 0) {
    const cycles = hasCycles(proposal) || hasCycles(proposal.requested) || grownOver.some(hasCycles);
    const summaries = grownOver.map(describeTurns).join(cycles ? "; " : ", ");
    const bare = (range: ReviewTurnRange) =>
      cycles ? describeTurns(range) : describeTurns(range).replace(/^turns? /, "");
    lines.push(
      `The range grew from ${bare(proposal.requested)} to ${bare(proposal)} so that it covers the existing ` +
        `summary of ${summaries} whole; the summary text should cover the whole range.`,
    );
  }
  lines.push(
    "Recorded as the current proposal; the user applies it with `cxc conversation compact --continue`.",
  );
  return lines.join("\n");
}

/** Metadata key of a `propose_compaction` result: the proposal as recorded, as data. */
export const PROPOSAL_METADATA_KEY = "cxc_proposal";

/**
 * The record a valid call leaves in its result's metadata: the final range (already grown) and
 * the policies, in the tool's own field names, so `--continue` re-validates exactly what the
 * result showed.
 */
export function proposalRecord(proposal: ReviewProposal): Record<string, unknown> {
  return {
    from_turn: proposal.fromTurn,
    to_turn: proposal.toTurn,
    ...(proposal.fromCycle === undefined ? {} : { from_cycle: proposal.fromCycle }),
    ...(proposal.toCycle === undefined ? {} : { to_cycle: proposal.toCycle }),
    ...(proposal.summary === undefined ? {} : { summary: proposal.summary }),
    ...(proposal.reasoning === undefined ? {} : { reasoning: proposal.reasoning }),
    ...(proposal.toolCalls === undefined ? {} : { tool_calls: proposal.toolCalls }),
    ...(proposal.keep === undefined
      ? {}
      : {
          keep: proposal.keep.map((position) =>
            position.cycle === undefined
              ? `${position.turn + 1}`
              : `${position.turn + 1}.${position.cycle + 1}`,
          ),
        }),
  };
}

/** What `--continue` prints before asking (docs/review.md, "Applying"). */
export function renderContinuePrompt(
  proposal: ReviewProposal,
  turnCount: number,
  replaces: readonly string[] = [],
): string {
  const rest = turnCount - proposal.toTurn;
  const turns = (count: number) => (count === 1 ? "1 turn" : `${count} turns`);
  let stay: string;
  if (proposal.toCycle === undefined) stay = `${turns(rest)} ${rest === 1 ? "stays" : "stay"} uncompacted`;
  else {
    const partial = `turn ${proposal.toTurn} from cycle ${proposal.toCycle + 1}`;
    stay =
      rest === 0
        ? `${partial} stays uncompacted`
        : `${partial} and the ${turns(rest)} after it stay uncompacted`;
  }
  const lines = [renderProposalLine(proposal), `The conversation now has ${turns(turnCount)}; ${stay}.`];
  if (replaces.length > 0) {
    const plural = replaces.length === 1 ? "compaction" : "compactions";
    lines.push(`It replaces the ${plural} in force over those turns: ${replaces.join("; ")}.`);
  }
  if (proposal.summary !== undefined) lines.push("", proposal.summary);
  return lines.join("\n");
}

/**
 * The compactions in force that an applied proposal would stand over, as `show` numbers and
 * describes them (`2. turns 4..6 (3 total, summary)`): a summary replaces them in the view.
 */
export function compactionsReplacedBy(
  proposal: ReviewProposal,
  sourceEvents: readonly ConversationEvent[],
): string[] {
  const span = reviewRangeSpan(proposal);
  return activeCompactions(sourceEvents)
    .filter(({ compaction }) => {
      const covered = compactionSpan(compaction);
      return comparePositions(span.from, covered.from) <= 0 && comparePositions(covered.to, span.to) <= 0;
    })
    .map(({ number, compaction }) => `${number}. ${describeCompaction(compaction)}`);
}

// ---------------------------------------------------------------------------------------------
// The current proposal, and `--continue`

/** A successful `propose_compaction` call found in a review. */
export interface RecordedProposal {
  readonly callId: string;
  /**
   * What `--continue` validates: the proposal as its result recorded it (`PROPOSAL_METADATA_KEY`),
   * or, for a review written before results recorded it, the call's own arguments (validating them
   * again grows the range the same way: an open review admits no compaction of its source).
   */
  readonly arguments: Readonly<Record<string, unknown>>;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The current proposal: the latest `propose_compaction` call whose result was not an error. A
 * failed call recorded nothing (the model was told so), and a call without a result never ran.
 */
export function findLatestProposal(events: readonly ConversationEvent[]): RecordedProposal | undefined {
  const requests = new Map<string, ToolCallRequest>();
  for (const event of events) {
    if (event.type === "tool_call_request" && event.name === PROPOSE_COMPACTION_TOOL_NAME) {
      requests.set(event.call_id, event);
    }
  }
  for (let position = events.length - 1; position >= 0; position--) {
    const event = events[position]!;
    if (event.type !== "tool_call_response" || event.is_error) continue;
    const request = requests.get(event.call_id);
    if (request === undefined) continue;
    const recorded = event.metadata?.[PROPOSAL_METADATA_KEY];
    return { callId: request.call_id, arguments: isRecord(recorded) ? recorded : request.arguments };
  }
  return undefined;
}

/** Metadata key of the opening proposal's result: the provider's own summary the draft is. */
export const NATIVE_DRAFT_METADATA_KEY = "cxc_native_draft";

/** What became of the provider's own draft in the applied proposal (`nativeDraftOutcome`). */
export type NativeDraftOutcome =
  | { readonly kind: "kept"; readonly native: NativeSummary }
  | {
      readonly kind: "dropped";
      readonly native: NativeSummary;
      /** What the proposal changed of the draft: its text, its range, or both. */
      readonly changed: readonly ("text" | "range")[];
    };

/**
 * What becomes of the provider's own draft when `proposal` is applied: `kept` when the proposal
 * has the draft's range and text (the block stands as it was signed), `dropped` when anything
 * differs (an edited text, a changed range: a plain summary), with what changed; undefined when
 * the review opened with no native draft.
 */
export function nativeDraftOutcome(
  events: readonly ConversationEvent[],
  proposal: ReviewProposal,
): NativeDraftOutcome | undefined {
  for (const event of events) {
    if (event.type !== "tool_call_response") continue;
    const native = event.metadata?.[NATIVE_DRAFT_METADATA_KEY] as NativeSummary | undefined;
    if (native === undefined) continue;
    const drafted = event.metadata?.[PROPOSAL_METADATA_KEY] as Record<string, unknown> | undefined;
    const sameRange =
      drafted !== undefined &&
      drafted.from_turn === proposal.fromTurn &&
      drafted.to_turn === proposal.toTurn &&
      drafted.from_cycle === proposal.fromCycle &&
      drafted.to_cycle === proposal.toCycle;
    const sameText = proposal.summary !== undefined && proposal.summary === native.content;
    if (sameRange && sameText) return { kind: "kept", native };
    const changed = [...(sameText ? [] : ["text" as const]), ...(sameRange ? [] : ["range" as const])];
    return { kind: "dropped", native, changed };
  }
  return undefined;
}

/** True when `compaction` is exactly what `proposal` would write (range, policies, summary text). */
export function compactionMatchesProposal(compaction: Compaction, proposal: ReviewProposal): boolean {
  const toolCalls = proposal.toolCalls === undefined ? undefined : toolCallsPolicyFor(proposal.toolCalls);
  const range = reviewCycleRange(proposal);
  const policies = compactionPolicies(compaction);
  return (
    compaction.from_turn === range.from &&
    compaction.to_turn === range.to &&
    compaction.cycles?.from === range.fromCycle &&
    compaction.cycles?.to === range.toCycle &&
    policies.summary?.summary === proposal.summary &&
    policies.reasoning === proposal.reasoning &&
    JSON.stringify(policies.tool_calls ?? null) === JSON.stringify(toolCalls ?? null)
  );
}

/** What `--continue` knows about the review and its source. */
export interface ContinueInput {
  readonly review: {
    readonly id: string;
    readonly compactionSource?: string;
    readonly events: readonly ConversationEvent[];
  };
  /** Undefined when the source does not exist any more. */
  readonly source?: { readonly archived: boolean; readonly events: readonly ConversationEvent[] };
}

/** What `--continue` should do. */
export type ContinueDecision =
  | ({ readonly kind: "not-a-review" | "source-deleted" | "no-proposal" | "invalid" } & ReviewRefusal)
  /** The proposal is already the source's latest compaction: archive and switch back only. */
  | { readonly kind: "already-applied"; readonly sourceId: string; readonly proposal: ReviewProposal }
  | {
      readonly kind: "apply";
      readonly sourceId: string;
      readonly proposal: ReviewProposal;
      readonly turnCount: number;
      /** The confirmation text (`renderContinuePrompt`). */
      readonly prompt: string;
    };

/** The refusal when the active conversation is not a review (`--continue` and `--abort`). */
export function notAReviewRefusal(
  activeId: string | undefined,
  flag: "--continue" | "--abort",
): ReviewRefusal {
  return {
    message:
      activeId === undefined
        ? `${flag} acts on the active conversation, which must be a compaction review, and no conversation is active`
        : `${flag} acts on the active conversation, which must be a compaction review; ${activeId} is not one`,
    hint: "switch back to the review first with `cxc conversation use ID`, or start one with `cxc conversation compact --interactive`",
  };
}

/** Decides what `--continue` does (see ContinueDecision); call it holding both locks. */
export function planContinue(input: ContinueInput): ContinueDecision {
  const sourceId = input.review.compactionSource;
  if (sourceId === undefined)
    return { kind: "not-a-review", ...notAReviewRefusal(input.review.id, "--continue") };
  if (input.source === undefined) {
    return {
      kind: "source-deleted",
      message: `the source conversation ${sourceId} no longer exists, so there is nothing to apply the proposal to`,
      hint: "close the review with `cxc conversation compact --abort`",
    };
  }
  const recorded = findLatestProposal(input.review.events);
  if (recorded === undefined) {
    return {
      kind: "no-proposal",
      message:
        "the review contains no propose_compaction call that succeeded, so there is no proposal to apply",
      hint: 'ask the model to record one, e.g. cxc q "record the proposal with propose_compaction", or end with --abort',
    };
  }
  // The recorded (already grown) range is what the user saw, so it is what gets re-validated.
  const validation = validateProposal(recorded.arguments, {
    kind: "found",
    id: sourceId,
    events: input.source.events,
  });
  if (!validation.ok) {
    return {
      kind: "invalid",
      message: `the latest proposal no longer fits the conversation: ${validation.message.split("\n").join("; ")}`,
      hint: 'discuss it again and record a new proposal (cxc q "…"), or end with --abort',
    };
  }
  const latest = activeCompactions(input.source.events).at(-1)?.compaction;
  if (latest !== undefined && compactionMatchesProposal(latest, validation.proposal)) {
    return { kind: "already-applied", sourceId, proposal: validation.proposal };
  }
  return {
    kind: "apply",
    sourceId,
    proposal: validation.proposal,
    turnCount: validation.turnCount,
    prompt: renderContinuePrompt(
      validation.proposal,
      validation.turnCount,
      validation.proposal.summary === undefined
        ? []
        : compactionsReplacedBy(validation.proposal, input.source.events),
    ),
  };
}

/**
 * The plan of an agreed proposal against the source: one rule over the proposal's exact range
 * (0-based from here on), planned like any other (compaction/core/plan.ts) and applied by the
 * compaction pipeline. The summary was negotiated, not derived from a recipe, so it is `supplied`
 * by the assistant that recorded it; its range already covers the summaries it touches.
 */
export function reviewCompactionPlan(
  proposal: ReviewProposal,
  reviewId: string,
  sourceEvents: readonly ConversationEvent[],
  now: string,
  keeping?: Keeping,
  native?: NativeSummary,
): CompactionPlan {
  const { start, end } = reviewBounds(proposal);
  return planCompaction(sourceEvents, {
    rules: [
      {
        keep_first: start,
        keep_last: end,
        ...(proposal.summary === undefined
          ? {}
          : {
              supplied: {
                text: proposal.summary,
                author: "assistant",
                ...(native === undefined ? {} : { native }),
              },
            }),
        ...(proposal.reasoning === undefined ? {} : { reasoning: proposal.reasoning }),
        ...(proposal.toolCalls === undefined ? {} : { tool_calls: proposal.toolCalls }),
      },
    ],
    now,
    source: "user",
    note: `agreed in compaction review ${reviewId}`,
    // The proposal was validated against the source as it stands: its last cycle may be covered.
    keepLastCycle: false,
    ...(keeping === undefined ? {} : { keeping }),
  });
}

// ---------------------------------------------------------------------------------------------
// The review's history

/** The marker prepended to a copied turn's user message: `[turn 17] `. */
export function turnMarker(turnNumber: number): string {
  return `[turn ${turnNumber}] `;
}

/** The marker prepended to the first tool result of a cycle: `[turn 4, cycle 12] `. */
export function cycleMarker(turnNumber: number, cycleNumber: number): string {
  return `[turn ${turnNumber}, cycle ${cycleNumber}] `;
}

/**
 * The events a review starts from. When the raw events fit the review model's window the copied
 * `compaction` and `compaction_reset` entries are dropped, so the model sees every original turn;
 * otherwise they are kept and earlier turns show as their summaries. Either way the first user
 * message of every turn gets its 1-based `[turn N]` marker, and in a turn of several cycles the
 * first tool result of each cycle its `[turn N, cycle C]` marker, so ranges can end inside a turn.
 * Inputs are not modified.
 */
export function buildReviewHistory(
  sourceEvents: readonly ConversationEvent[],
  options: { readonly keepCompactions: boolean },
): ConversationEvent[] {
  const layout = layoutCycles(sourceEvents);
  const indices = layout.turnIndices;
  const marked = new Set<number>();
  const markedCycles = new Set<string>();
  const history: ConversationEvent[] = [];
  sourceEvents.forEach((event, position) => {
    if (!options.keepCompactions && (event.type === "compaction" || event.type === "compaction_reset"))
      return;
    const turn = indices[position]!;
    if (event.type === "chat_request" && !marked.has(turn)) {
      marked.add(turn);
      history.push({ ...event, content: `${turnMarker(turn + 1)}${event.content}` });
      return;
    }
    const cycle = layout.cycles[position]!;
    const key = `${turn}.${cycle}`;
    if (
      event.type === "tool_call_response" &&
      cycle !== HEAD &&
      (layout.cycleCounts[turn] ?? 0) > 1 &&
      !markedCycles.has(key)
    ) {
      markedCycles.add(key);
      history.push({ ...event, content: `${cycleMarker(turn + 1, cycle + 1)}${event.content}` });
      return;
    }
    history.push(event);
  });
  return history;
}

/**
 * The opening proposal, written as if the model had made it: a turn whose user message asks for a
 * review, the assistant's `propose_compaction` call carrying the summarizer's text byte for byte,
 * its result, and a short assistant message inviting the discussion.
 */
export function buildOpeningProposal(
  validation: Extract<ProposalValidation, { ok: true }>,
  options: { readonly callId: string; readonly stamp: () => { id: string; ts: string } },
): TurnEvent[] {
  const { proposal } = validation;
  const argumentsObject: Record<string, unknown> = { from_turn: proposal.fromTurn, to_turn: proposal.toTurn };
  if (proposal.fromCycle !== undefined) argumentsObject.from_cycle = proposal.fromCycle;
  if (proposal.toCycle !== undefined) argumentsObject.to_cycle = proposal.toCycle;
  if (proposal.summary !== undefined) argumentsObject.summary = proposal.summary;
  return [
    { type: "turn_start", ...options.stamp() },
    {
      type: "chat_request",
      ...options.stamp(),
      content:
        `Let's review a compaction of the conversation above (${validation.turnCount} turns). ` +
        "Record the summarizer's draft as the opening proposal, then we discuss it.",
    },
    {
      type: "tool_call_request",
      ...options.stamp(),
      call_id: options.callId,
      name: PROPOSE_COMPACTION_TOOL_NAME,
      arguments: argumentsObject,
    },
    {
      type: "tool_call_response",
      ...options.stamp(),
      call_id: options.callId,
      content: renderProposalResult(validation),
      is_error: false,
      metadata: {
        [PROPOSAL_METADATA_KEY]: proposalRecord(validation.proposal),
        ...(validation.native === undefined ? {} : { [NATIVE_DRAFT_METADATA_KEY]: validation.native }),
      },
    },
    {
      type: "chat_response",
      ...options.stamp(),
      message:
        `I recorded the draft: ${renderProposalLine(proposal, validation.turnCount).replace(/^Proposed: /, "")}. ` +
        "Tell me what to change — the range, what the summary keeps or drops, or a mechanical compaction instead — " +
        "and I will record each agreed revision with propose_compaction.",
    } as TurnEvent,
  ];
}

// ---------------------------------------------------------------------------------------------
// The review's configuration entry

/**
 * Metadata key marking the `config_delta` a review writes at fork time. Only marked deltas are
 * applied by `applyReviewConfig`: other deltas (a model choice, or jp settings from an import) are
 * not configuration cxc should start obeying.
 */
export const REVIEW_CONFIG_METADATA_KEY = "compaction_review";

/**
 * The configuration a turn in a review runs with: `config` with the review's fork-time entries
 * merged on top, in stream order (inherited tools off, `propose_compaction` on, the review
 * instructions and model). Conversations without such an entry get `config` back unchanged.
 */
export function applyReviewConfig(config: ConfigTable, events: readonly ConversationEvent[]): ConfigTable {
  const deltas = events.filter(
    (event) => event.type === "config_delta" && event.metadata?.[REVIEW_CONFIG_METADATA_KEY] === true,
  );
  if (deltas.length === 0) return config;
  const layers = [
    { origin: "config", values: config },
    ...deltas.flatMap((event) =>
      event.type === "config_delta" && isConfigTable(event.delta)
        ? [{ origin: "review", values: event.delta as ConfigTable }]
        : [],
    ),
  ];
  return mergeConfigLayers(layers).values;
}
