/**
 * The compaction advisor and automatic compaction, the decisions only. Pure: no clock, no model,
 * no disk. The shell (src/compaction/advisor.ts, src/compaction/automatic.ts) measures the context,
 * asks the decision model and stores what is decided here.
 *
 * - Settings: `conversation.compaction.auto` here; `conversation.compaction.advisor` (with
 *   `CXC_ADVISOR_*` overrides, the three token lines read as a set) in settings.ts,
 *   re-exported here.
 * - Tiers: code, never the model, maps four typed answers and the token lines to a tier
 *   (docs/advisor.md has the table). The same tier is never announced twice in a row.
 * - The cut point: a confident pick of the turn (or the cycle inside a turn) where the live work
 *   starts moves the planned range's end earlier; it never moves it later and never changes how
 *   the summary is written.
 * - Automatic compaction: the trigger, the no-loop guard and the plan's rules.
 */
import * as z from "zod";
import { zodTool } from "../../../core/zod-schema.js";
import {
  type EnvironmentRecord,
  type ReadSettings,
  readBoolean,
  readPositiveInteger,
  settingsSection,
  type TokenLines,
} from "./settings.js";
import type { Compaction, ConversationEvent } from "../../../core/conversation/events.js";
import { type CompactionRule, readCompactionRules, ruleHasPolicy } from "../rules.js";
import { DEFAULT_KEEP_LAST } from "../rules.js";
import { OPEN_START } from "../../../core/position/bound.js";

/** The advisor's tiers, quietest first. */
export const TIERS = ["silent", "notice", "recommend", "request"] as const;
/** One of `TIERS`. */
export type Tier = (typeof TIERS)[number];

export * from "./settings.js";

/** What triggers an automatic compaction: a fraction of the model's window, or a token count. */
export type AutoTrigger =
  | { readonly kind: "fraction"; readonly fraction: number }
  | { readonly kind: "tokens"; readonly tokens: number };

/** `conversation.compaction.auto`, checked. */
export interface AutoSettings {
  readonly enabled: boolean;
  readonly trigger: AutoTrigger;
  /** Turns kept verbatim at the end when the advisor does not move the cut. */
  readonly keepLast: number;
  /**
   * With fewer turns than that, the cycles of the last turn kept verbatim (one long turn is
   * compacted inside, before its last cycles).
   */
  readonly keepLastCycles: number;
  /**
   * `auto.native`: its summaries are the provider's own (Anthropic's on-demand compaction) where
   * the model has it and a block can stand, cxc's own otherwise (docs/native-compaction.md).
   */
  readonly native?: boolean;
  /**
   * `auto.rules`: the policies to apply (jp's rule schema; their keep bounds are replaced by the
   * automatic range). Undefined means the default (`buildAutoRules`).
   */
  readonly rules?: readonly CompactionRule[];
}

export const DEFAULT_AUTO_TRIGGER: AutoTrigger = Object.freeze({ kind: "fraction", fraction: 0.8 });
export const DEFAULT_AUTO_KEEP_LAST = 2;
export const DEFAULT_AUTO_KEEP_LAST_CYCLES = 5;
/** A compaction that saved less than this fraction is not repeated on the next turn. */
export const MINIMUM_SAVED_FRACTION = 0.1;
/** A cut-point pick at or above this confidence moves the cut. */
export const CUT_POINT_CONFIDENCE = 0.6;

/** `0.8` or `"80%"` is a fraction of the window; an integer above 1 is a token count. */
export function readAutoTrigger(value: unknown): AutoTrigger | undefined {
  if (typeof value === "string") {
    const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
    if (percent) return readAutoTrigger(Number(percent[1]) / 100);
    const number = Number(value.replace(/_/g, ""));
    return value.trim() === "" || Number.isNaN(number) ? undefined : readAutoTrigger(number);
  }
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return undefined;
  if (value <= 1) return { kind: "fraction", fraction: value };
  return Number.isInteger(value) ? { kind: "tokens", tokens: value } : undefined;
}

/**
 * Reads `conversation.compaction.auto` (`enabled`, `trigger`, `keep_last`, `keep_last_cycles`); off
 * by default.
 */
export function readAutoSettings(
  config: unknown,
  environment: EnvironmentRecord = {},
): ReadSettings<AutoSettings> {
  const section = settingsSection(config, "auto", environment, "CXC_AUTO_COMPACT_");
  const { what, warnings, lookup } = section;
  const settings: AutoSettings = {
    enabled: section.read("enabled", readBoolean, false),
    trigger: section.read("trigger", readAutoTrigger, DEFAULT_AUTO_TRIGGER),
    keepLast: section.read("keep_last", readPositiveInteger, DEFAULT_AUTO_KEEP_LAST),
    keepLastCycles: section.read("keep_last_cycles", readPositiveInteger, DEFAULT_AUTO_KEEP_LAST_CYCLES),
    ...(section.read("native", readBoolean, false) ? { native: true } : {}),
  };
  const configured = lookup("rules");
  if (configured === undefined) return { settings, warnings };
  const rules = readCompactionRules(configured);
  if (rules.ok && rules.value.some(ruleHasPolicy))
    return { settings: { ...settings, rules: rules.value }, warnings };
  const problem = rules.ok ? "no rule has a policy" : rules.message;
  warnings.push(`${what}.rules: ${problem}; using the default (strip reasoning and tools, then a summary)`);
  return { settings, warnings };
}

/** A number from 0 to 1 that answers `question`. */
const unit = (question: string) => z.number().min(0).max(1).describe(question);

/**
 * The four answers of one decision call, each 0..1 (the descriptions are the questions asked).
 * The advisor's schemas are built when a decision call is made, not when a turn loads this module.
 */
const advisorAnswersSchema = () =>
  z.object({
    switched_gears: unit("Is the latest request a different task from what came before it?"),
    at_boundary: unit("Did the last turn finish a unit of work?"),
    needs_history: unit("How much of the earlier conversation does the next step need?"),
    mid_operation: unit(
      "Is the agent in the middle of a multi-step change whose partial state exists only in this conversation?",
    ),
  });
/** The four signals. */
export type AdvisorSignals = z.infer<ReturnType<typeof advisorAnswersSchema>>;

/**
 * The cut-point answer: the 1-based turn number where the still-live work starts and, when it
 * starts partway through that turn, the cycle (docs/advisor.md, "The cut point").
 */
const liveFromAnswerSchema = () =>
  z.object({
    live_from_turn: z.number().int().min(1).describe("The turn number, as labelled [turn N]."),
    live_from_cycle: z
      .number()
      .int()
      .min(2)
      .nullish()
      .describe(
        "Only when the live work starts partway through that turn: the cycle, as labelled [turn N, cycle C]. Leave it out otherwise.",
      ),
    confidence: unit("0 = guessing, 1 = certain."),
  });
export type LiveFromAnswer = z.infer<ReturnType<typeof liveFromAnswerSchema>>;

/** The decision tool the model is forced to call (its parameters and check from one schema). */
export const ADVISOR_QUESTIONS_TOOL = zodTool(
  "answer_questions",
  "Answer four questions about the work in this conversation, each as a number from 0 to 1.",
  advisorAnswersSchema,
);

/** The cut-point tool the model is forced to call. */
export const LIVE_FROM_TOOL = zodTool(
  "pick_live_from",
  "Pick the turn where the work that is still live starts, and how sure you are.",
  liveFromAnswerSchema,
);

/** Validates the decision call's arguments; a message names the first problem. */
export function parseAdvisorAnswers(
  value: unknown,
): { ok: true; signals: AdvisorSignals } | { ok: false; message: string } {
  const checked = ADVISOR_QUESTIONS_TOOL.check(value);
  if (checked.ok) return { ok: true, signals: checked.value };
  const issue = checked.issues[0];
  return {
    ok: false,
    message: `invalid decision answers at ${issue?.path.join(".") || "root"}: ${issue?.message ?? ""}`,
  };
}

/** The `should_i_compact` verdict (docs/advisor.md, "Tools"). */
export interface Verdict {
  readonly should_compact: boolean;
  readonly tier: Tier;
  readonly reason: string;
  readonly context_tokens: number;
  readonly context_percent?: number;
  readonly lines: TokenLines;
  readonly signals?: AdvisorSignals;
  readonly next_step: string;
}

/** What the advisor keeps between runs of one conversation (its own record in the store). */
export interface AdvisorState {
  readonly last_announced?: Tier;
  /** True once a failure at turn end has been reported for this conversation. */
  readonly warned?: boolean;
  /** What the decision calls cost so far, as the providers reported it (`cxc conversation stats`). */
  readonly decision_usage?: DecisionUsage;
  /**
   * The compactions in force when `last_announced` was announced: a compaction since (cxc's, or an
   * agent's own) makes the next announcement fresh.
   */
  readonly compactions_seen?: number;
}

/** The decision model's calls for one conversation and their reported tokens. */
export interface DecisionUsage {
  readonly calls: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/** The usage after one more decision call. */
export function addDecisionUsage(
  usage: DecisionUsage | undefined,
  call: { readonly inputTokens: number; readonly outputTokens: number },
): DecisionUsage {
  return {
    calls: (usage?.calls ?? 0) + 1,
    input_tokens: (usage?.input_tokens ?? 0) + call.inputTokens,
    output_tokens: (usage?.output_tokens ?? 0) + call.outputTokens,
  };
}

/** Thresholds of the tier table (docs/advisor.md). */
export const TIER_THRESHOLDS = Object.freeze({ midOperation: 0.6, movedOn: 0.5, needsHistory: 0.7 });

/** Inputs of `decideTier`. */
export interface TierInput {
  readonly tokens: number;
  readonly lines: TokenLines;
  /** Undefined when no decision model answered: the tier then follows the token lines only. */
  readonly signals?: AdvisorSignals;
  /**
   * Turns and cycles a compaction could cover now: earlier turns, and the current turn's cycles
   * before its last (0: nothing to compact yet).
   */
  readonly compactable: number;
}

/** A tier and the one-line reason for it. */
export interface TierDecision {
  readonly tier: Tier;
  readonly reason: string;
}

function lineTier(tokens: number, lines: TokenLines): Tier {
  if (tokens >= lines.request) return "request";
  if (tokens >= lines.recommend) return "recommend";
  if (tokens >= lines.notice) return "notice";
  return "silent";
}

function quieter(tier: Tier): Tier {
  return TIERS[Math.max(0, TIERS.indexOf(tier) - 1)]!;
}

/** Maps answers and lines to a tier; the silences are checked before the token count. */
export function decideTier(input: TierInput): TierDecision {
  const { signals } = input;
  if (input.compactable <= 0) return { tier: "silent", reason: "nothing to compact yet" };
  if (signals === undefined) {
    const tier = lineTier(input.tokens, input.lines);
    const reason = tier === "silent" ? "below the notice line" : `past the ${tier} line`;
    return { tier, reason: `${reason} (token lines only: no decision model answered)` };
  }
  if (signals.mid_operation >= TIER_THRESHOLDS.midOperation) {
    return { tier: "silent", reason: "the agent is in the middle of an operation" };
  }
  if (signals.switched_gears < TIER_THRESHOLDS.movedOn && signals.at_boundary < TIER_THRESHOLDS.movedOn) {
    return { tier: "silent", reason: "the work has not moved on" };
  }
  const byLines = lineTier(input.tokens, input.lines);
  if (byLines === "silent") return { tier: "silent", reason: "below the notice line" };
  const why =
    signals.switched_gears >= TIER_THRESHOLDS.movedOn ? "the task changed" : "a unit of work just finished";
  if (signals.needs_history >= TIER_THRESHOLDS.needsHistory) {
    const tier = quieter(byLines);
    return { tier, reason: `past the ${byLines} line and ${why}, but the next step needs the history` };
  }
  return { tier: byLines, reason: `past the ${byLines} line and ${why}` };
}

/** What the advisor remembers between turns (kept in the conversation's metadata by the shell). */
export interface AnnouncementState {
  readonly lastAnnounced?: Tier;
}

/**
 * Whether a tier is announced, and the state after. Silent is never announced; the same tier is
 * never announced twice in a row, nor a quieter one after a louder (the context only eases off);
 * an escalation to a louder tier is. A compaction, or the context falling below the notice line,
 * clears the state (`clearAnnouncements`), so the next crossing is news again.
 */
export function decideAnnouncement(
  state: AnnouncementState,
  tier: Tier,
): { announce: boolean; state: AnnouncementState } {
  if (tier === "silent") return { announce: false, state };
  if (state.lastAnnounced !== undefined && TIERS.indexOf(tier) <= TIERS.indexOf(state.lastAnnounced))
    return { announce: false, state };
  return { announce: true, state: { lastAnnounced: tier } };
}

/** The state after a compaction: the next announcement is fresh. */
export function clearAnnouncements(): AnnouncementState {
  return {};
}

/** A pick of where the live work starts (0-based turn index, and cycle when inside the turn). */
export interface LiveFromPick {
  readonly turn: number;
  /** Set when the live work starts partway through `turn`: its 0-based cycle (at least 1). */
  readonly cycle?: number;
  readonly confidence: number;
}

/** The end of an automatic compaction's range: the end of turn `to`, or its cycle `toCycle`. */
export interface CutPoint {
  readonly to: number;
  readonly toCycle?: number;
}

/** An automatic compaction's planned range: from turn `from` to the end of `to`, or its cycle `toCycle`. */
export interface PlannedRange extends CutPoint {
  readonly from: number;
}

/** True when end `a` comes before end `b` (a turn's end comes after all of its cycles). */
function endsBefore(a: CutPoint, b: CutPoint): boolean {
  if (a.to !== b.to) return a.to < b.to;
  return (a.toCycle ?? Number.POSITIVE_INFINITY) < (b.toCycle ?? Number.POSITIVE_INFINITY);
}

/**
 * The end of the planned range after the advisor's pick. A confident pick of live turn `L` ends
 * the range at `L - 1`; a pick of cycle `C` of turn `L` (a cut inside the turn) ends it at cycle
 * `C - 1` of `L`, when `L` lies in the planned range. Either only when that is earlier than
 * planned and still leaves something to compact; otherwise the planned end stays: it never moves
 * later.
 */
export function moveCutEarlier(planned: PlannedRange, pick: LiveFromPick | undefined): CutPoint {
  const stay: CutPoint =
    planned.toCycle === undefined ? { to: planned.to } : { to: planned.to, toCycle: planned.toCycle };
  if (pick === undefined || pick.confidence < CUT_POINT_CONFIDENCE) return stay;
  const moved: CutPoint =
    pick.cycle !== undefined && pick.cycle >= 1
      ? { to: pick.turn, toCycle: pick.cycle - 1 }
      : { to: pick.turn - 1 };
  if (moved.to < planned.from || moved.to > planned.to) return stay;
  return endsBefore(moved, planned) ? moved : stay;
}

/**
 * The 0-based turns one cut-point question offers: the last `maxTurns` up to the turn after the
 * planned end, or, when the range ends inside a turn, up to that turn.
 */
export function cutPointCandidates(planned: PlannedRange, maxTurns: number): number[] {
  const inside = planned.toCycle !== undefined;
  const last = inside ? planned.to : planned.to + 1;
  const first = Math.max(inside ? planned.from : planned.from + 1, last - Math.max(1, maxTurns) + 1);
  const turns: number[] = [];
  for (let turn = first; turn <= last; turn++) turns.push(turn);
  return turns;
}

/** The token count an automatic compaction fires at, or undefined when it cannot be known. */
export function autoTriggerTokens(
  trigger: AutoTrigger,
  contextWindow: number | undefined,
): number | undefined {
  if (trigger.kind === "tokens") return trigger.tokens;
  return contextWindow === undefined ? undefined : Math.floor(contextWindow * trigger.fraction);
}

/** Metadata key on an automatic `compaction` event: the sizes before and after, and the turn. */
export const AUTO_METADATA_KEY = "cxc_auto";

/** What an automatic compaction records about itself. */
export interface AutoRecord {
  readonly tokens_before: number;
  readonly tokens_after: number;
  /** The highest turn index when it was recorded. */
  readonly turn: number;
}

function readAutoRecord(compaction: Compaction): AutoRecord | undefined {
  const record = compaction.metadata?.[AUTO_METADATA_KEY] as Partial<AutoRecord> | undefined;
  if (typeof record !== "object" || record === null) return undefined;
  const { tokens_before: before, tokens_after: after, turn } = record;
  if (typeof before !== "number" || typeof after !== "number" || typeof turn !== "number") return undefined;
  return { tokens_before: before, tokens_after: after, turn };
}

/** The fraction of the context a compaction saved (0 when nothing was there). */
export function savedFraction(record: Pick<AutoRecord, "tokens_before" | "tokens_after">): number {
  return record.tokens_before <= 0 ? 0 : (record.tokens_before - record.tokens_after) / record.tokens_before;
}

/**
 * The no-loop guard: true when the latest automatic compaction saved less than 10% and was made
 * at the previous turn boundary (or this one), so repeating it now would likely loop.
 */
export function isHeldByNoLoopGuard(compactions: readonly Compaction[], currentTurn: number): boolean {
  for (let position = compactions.length - 1; position >= 0; position--) {
    const record = readAutoRecord(compactions[position]!);
    if (record === undefined) continue;
    return currentTurn - record.turn <= 1 && savedFraction(record) < MINIMUM_SAVED_FRACTION;
  }
  return false;
}

/**
 * The rules of an automatic compaction over turns `0..end`. By default: first strip reasoning and
 * tool calls, then a summary of the same range. Two events, so undoing the (lossy) summary with
 * `--reset` still leaves the (cheap) strip in place. `configured` (`auto.rules`) replaces the
 * default. `note` (from `compact_now`) is added to every summary's context, the summarizer's focus.
 */
export function buildAutoRules(
  note?: string,
  configured?: readonly CompactionRule[],
  native = false,
): CompactionRule[] {
  const rules: CompactionRule[] = configured?.filter(ruleHasPolicy).map((rule) => ({ ...rule })) ?? [
    { reasoning: "strip", tool_calls: "strip" },
    { summary: {} },
  ];
  const focus = note?.trim() ?? "";
  return rules.map((rule) => {
    const keep = { keep_first: OPEN_START, keep_last: DEFAULT_KEEP_LAST };
    if (rule.summary === undefined) return { ...rule, ...keep };
    const summary = native ? { ...rule.summary, native: true } : rule.summary;
    if (focus === "") return { ...rule, ...keep, summary };
    const context = summary.context === undefined ? focus : `${summary.context}\n\n${focus}`;
    return { ...rule, ...keep, summary: { ...summary, context } };
  });
}

/** The `compact_now` tool's name: its successful calls schedule automatic compaction (src/tools/compact-now.ts). */
export const COMPACT_NOW_NAME = "compact_now";

/** The calls of tool `name` among `events` whose responses succeeded (e.g. this turn's `compact_now`). */
export function findSucceededCalls(
  events: readonly ConversationEvent[],
  name: string,
): { callId: string; argumentsObject: Readonly<Record<string, unknown>> }[] {
  const succeeded = new Set<string>();
  for (const event of events)
    if (event.type === "tool_call_response" && !event.is_error) succeeded.add(event.call_id);
  return events
    .filter((event) => event.type === "tool_call_request" && event.name === name)
    .map((event) => event as Extract<ConversationEvent, { type: "tool_call_request" }>)
    .filter((event) => succeeded.has(event.call_id))
    .map((event) => ({ callId: event.call_id, argumentsObject: event.arguments }));
}

/**
 * The range an automatic compaction plans before the advisor's pick: all but the last `keepLast`
 * turns; with too few turns for that, everything up to the last `keepCycles` cycles of the last
 * turn (`cycleCounts`: the cycles of each turn), so one long turn can be compacted too.
 * Undefined when that leaves nothing.
 */
export function planAutoRange(
  turnCount: number,
  keepLast: number,
  cycleCounts: readonly number[] = [],
  keepCycles: number = DEFAULT_AUTO_KEEP_LAST_CYCLES,
): PlannedRange | undefined {
  const to = turnCount - 1 - Math.max(1, keepLast);
  if (to >= 0) return { from: 0, to };
  const last = turnCount - 1;
  const toCycle = (cycleCounts[last] ?? 0) - 1 - Math.max(1, keepCycles);
  return last >= 0 && toCycle >= 0 ? { from: 0, to: last, toCycle } : undefined;
}

/** The live count as `63.2k tokens (31.6% of the window)`, or without the percent when the window is unknown. */
export function describeLiveCount(
  tokens: number,
  contextWindow: number | undefined,
  formatCount: (count: number) => string,
): string {
  const count = `${formatCount(tokens)} tokens`;
  if (contextWindow === undefined || contextWindow <= 0) return count;
  return `${count} (${((tokens / contextWindow) * 100).toFixed(1)}% of the window)`;
}

const TIER_HEADLINES: Readonly<Record<Tier, string>> = {
  silent: "",
  notice: "Context is growing",
  recommend: "Recommended: compact now",
  request: "Compaction requested: the context is past the request line you set",
};

/** From this share of the model's window on, the context is "nearly full". */
export const NEARLY_FULL_FRACTION = 0.85;

/**
 * The headline of a tier: the words follow the number, so "nearly full" is said only when the
 * context is near the window (`NEARLY_FULL_FRACTION`), never of a line set far below it.
 */
export function tierHeadline(tier: Tier, tokens: number, contextWindow: number | undefined): string {
  const nearlyFull =
    contextWindow !== undefined && contextWindow > 0 && tokens >= contextWindow * NEARLY_FULL_FRACTION;
  if (tier === "request" && nearlyFull) return "Compaction requested: the context is nearly full";
  return TIER_HEADLINES[tier];
}

/** How full the context is: its tokens and the model's window when known. */
export interface AdviceMeasure {
  readonly tokens: number;
  readonly contextWindow: number | undefined;
}

/** What the advisor says of a tier: its headline, where the context stands, and why. */
function adviceSentence(decision: TierDecision, liveCount: string, measure: AdviceMeasure): string {
  const headline = tierHeadline(decision.tier, measure.tokens, measure.contextWindow);
  return `${headline}. Context is at ${liveCount}; ${decision.reason}.`;
}

/** The one stderr line of an announced tier. */
export function renderAdvice(decision: TierDecision, liveCount: string, measure: AdviceMeasure): string {
  return `advisor: ${adviceSentence(decision, liveCount, measure)}`;
}

/**
 * The hint under recommend and request advice (printed as a `hint:` line): the command that acts on it. With
 * `compact_now` enabled the assistant can do it itself; otherwise the user can, or can enable it.
 */
export function renderAdviceHint(
  tier: Tier,
  context: { readonly compactNowEnabled: boolean; readonly conversationId?: string },
): string | undefined {
  if (tier !== "recommend" && tier !== "request") return undefined;
  const target = context.conversationId === undefined ? "" : ` ${context.conversationId}`;
  const command = `\`cxc conversation compact${target}\` (\`--dry-run\` first shows what it does)`;
  return context.compactNowEnabled
    ? `the assistant can compact with compact_now this turn; or run ${command}`
    : `run ${command}, or let the assistant do it: \`cxc q -t compact_now …\``;
}

/** The message steered into the running loop at recommend and request. */
export function renderSteeringMessage(
  decision: TierDecision,
  liveCount: string,
  measure: AdviceMeasure,
): string {
  return (
    `[cxc advisor] ${adviceSentence(decision, liveCount, measure)} ` +
    "Call compact_now with a short note on what you are doing and what the summary must keep, " +
    "then continue the current request."
  );
}
