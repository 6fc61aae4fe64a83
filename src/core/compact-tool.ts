/**
 * The assistant's `compact` tool (seed D69), the pure part: its argument schema, planning the
 * proposed rules into `compaction` events, and the texts shown to the user and the model. Pure.
 *
 * Each rule names a range of raw turns and what to do with it. The start is `after_quote` (the
 * turn after the quoted one) or `keep_first` (default 0: nothing kept); the end is `before_quote`
 * (the turn before the quoted one) or `keep_last`, clamped to at least 1 so the turn in progress,
 * with the user's request and this very call, can never be compacted away. Quotes resolve
 * against the projected view the model was shown (see anchors.ts).
 *
 * Rules are planned one after another against the stream as it would be after the earlier ones,
 * and that stream includes the deferred compactions recorded earlier in this turn (a second call
 * sees the first). A summary is the assistant's own text (`supplied`), so its range is never
 * widened: a summary that would split an existing one is a tool error naming the turns.
 *
 * The events carry `source: assistant`, the note, `summary.source = supplied` with `author:
 * assistant`, and `deferred_until_turn` = the next turn's index, so the rest of this turn keeps
 * the same prompt prefix and everything activates when the user's next message opens a turn.
 *
 * Every expected failure is returned as a message for the model, never thrown.
 */
import { z } from "zod";
import {
  type AnchorResolution,
  describeOrigin,
  eventText,
  excerptEnd,
  excerptStart,
  resolveAnchor,
} from "./anchors.js";
import { type Compaction, type ConversationEvent, isTurnEvent, type TurnEvent } from "./events.js";
import { checkSuppliedSummary } from "./plan-compaction.js";
import { originOverlaps, type ProjectedTurn, type ProjectedView, projectConversation } from "./projection.js";
import { type ToolCallsMode, toolCallsPolicyFor } from "./rules.js";
import { countTurnTokens, formatTokenCount, type TokenCounter } from "./tokens.js";
import { countTurns } from "./turns.js";

/** The tool's name, as the model and `-t`/`-u` spell it. */
export const COMPACT_TOOL_NAME = "compact";

/** The longest note kept; longer notes are cut (with `…`), never refused. */
export const NOTE_MAX_LENGTH = 200;

const TOOL_CALLS_MODES = ["strip", "strip-requests", "strip-responses", "omit"] as const;

/** Providers in strict modes send `null` for an absent optional field; it means "not given". */
const optional = <Schema extends z.ZodType>(schema: Schema) =>
  schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();

const RuleArgumentsSchema = z.strictObject({
  keep_first: optional(z.number().int().nonnegative()),
  keep_last: optional(z.number().int()),
  before_quote: optional(z.string()),
  after_quote: optional(z.string()),
  reasoning: optional(z.literal("strip")),
  tool_calls: optional(z.enum(TOOL_CALLS_MODES)),
  summary: optional(z.string()),
  note: z.string(),
});

/** The `compact` tool's arguments as the model sends them (before the cross-field checks). */
export const CompactToolArgumentsSchema = z.strictObject({
  rules: z.array(RuleArgumentsSchema).min(1),
});

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

function describeIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((part, position) =>
      typeof part === "number" ? `[${part}]` : `${position === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
}

type RuleArguments = z.infer<typeof RuleArgumentsSchema>;

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
  const parsed = CompactToolArgumentsSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 6)
      .map((issue) => `${describeIssuePath(issue.path) || "arguments"}: ${issue.message}`);
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

// ---------------------------------------------------------------------------------------------
// Planning

/** One planned rule: its resolved raw range, its event, and what the user needs to judge it. */
export interface PlannedCompactRule {
  /** 0-based position in the call's `rules`. */
  readonly index: number;
  readonly rule: CompactToolRule;
  /** Raw turns, 0-based, inclusive. */
  readonly from: number;
  readonly to: number;
  readonly compaction: Compaction;
  /** Tokens the projected view shrinks by once this rule is active (negative: it grows). */
  readonly tokensSaved: number;
  /** The projected view just before and just after this rule, every recorded compaction active. */
  readonly before: ProjectedView;
  readonly after: ProjectedView;
}

/** A planned call, or the message that tells the model what to fix. */
export type CompactToolPlan =
  | {
      readonly ok: true;
      readonly rules: readonly PlannedCompactRule[];
      /** The turn the compactions activate at (0-based): the next one. */
      readonly activatesAtTurn: number;
    }
  | { readonly ok: false; readonly message: string };

/** Inputs of `planCompactCall`. */
export interface PlanCompactCallOptions {
  /** Counts tokens for the "smaller by" estimate. */
  readonly countTokens: TokenCounter;
  /** Ids for the planned events (placeholders are fine for a preview). */
  readonly newEventId: () => string;
  /** RFC 3339 time of the events. */
  readonly now: string;
}

/** The stream with every compaction's deferral dropped: what the view will be once all activate. */
function activateAll(events: readonly ConversationEvent[]): ConversationEvent[] {
  return events.map((event) => {
    if (event.type !== "compaction" || event.deferred_until_turn === undefined) return event;
    const { deferred_until_turn: _deferred, ...active } = event;
    return active as Compaction;
  });
}

function countViewTokens(view: ProjectedView, countTokens: TokenCounter): number {
  return view.turns.reduce(
    (sum, turn, index) => sum + countTurnTokens({ index, events: turn.events }, countTokens).total,
    0,
  );
}

function resolveQuote(
  view: ProjectedView,
  quote: string,
  field: string,
  inProgressTurn: number,
): AnchorResolution {
  return resolveAnchor(view, quote, {
    field,
    ignoredToolNames: new Set([COMPACT_TOOL_NAME]),
    inProgressTurn,
  });
}

/** The raw range of one rule, or a message for the model. */
function resolveRuleRange(
  rule: CompactToolRule,
  index: number,
  shown: ProjectedView,
  turnCount: number,
): { from: number; to: number } | string {
  const inProgress = turnCount - 1;
  let from = rule.keepFirst ?? 0;
  let startedBy = `keep_first ${rule.keepFirst ?? 0}`;
  if (rule.afterQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.afterQuote, "after_quote", inProgress);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    from = anchor.turn + 1;
    startedBy = `after_quote (found in turn ${anchor.turn + 1})`;
  }
  let to = inProgress - rule.keepLast;
  let endedBy = `keep_last ${rule.keepLast}`;
  if (rule.beforeQuote !== undefined) {
    const anchor = resolveQuote(shown, rule.beforeQuote, "before_quote", inProgress);
    if (anchor.kind !== "found") return `rules[${index}]: ${anchor.message}`;
    to = anchor.turn - 1;
    endedBy = `before_quote (found in turn ${anchor.turn + 1})`;
  }
  if (from > to) {
    return (
      `rules[${index}] selects no turns: the range would start at turn ${from + 1} (${startedBy}) and end at ` +
      `turn ${to + 1} (${endedBy}); the conversation has ${turnCount} turns and the last one is in progress.`
    );
  }
  return { from, to };
}

function describeConflict(
  index: number,
  conflict: NonNullable<ReturnType<typeof checkSuppliedSummary>>,
  events: readonly ConversationEvent[],
  planned: readonly PlannedCompactRule[],
): string {
  const origins = conflict.conflicts.map((entry) => {
    const rule = planned.find((candidate) => candidate.compaction.id === entry.compactionId);
    if (rule !== undefined) return `rules[${rule.index}] of this call`;
    const recorded = events.find((event) => event.type === "compaction" && event.id === entry.compactionId);
    const pending = recorded?.type === "compaction" && recorded.deferred_until_turn !== undefined;
    return pending ? "a compaction proposed earlier in this turn, not active yet" : undefined;
  });
  const named = origins.filter((origin): origin is string => origin !== undefined);
  const origin = named.length === 0 ? "" : ` (${[...new Set(named)].join("; ")})`;
  return (
    `rules[${index}]: ${conflict.message}${origin}. Move the range's ends so the existing summary is either ` +
    "entirely inside it or entirely outside it."
  );
}

function buildEvent(
  rule: CompactToolRule,
  range: { from: number; to: number },
  id: string,
  now: string,
  activatesAtTurn: number,
): Compaction {
  // Key order follows buildCompactionEvent: jp's fields first, cxc's additions after.
  const event: Record<string, unknown> = {
    type: "compaction",
    id,
    ts: now,
    from_turn: range.from,
    to_turn: range.to,
  };
  if (rule.summary !== undefined)
    event.summary = { summary: rule.summary, source: "supplied", author: "assistant" };
  if (rule.reasoning !== undefined) event.reasoning = rule.reasoning;
  if (rule.toolCalls !== undefined) event.tool_calls = toolCallsPolicyFor(rule.toolCalls);
  event.source = "assistant";
  event.note = rule.note;
  event.deferred_until_turn = activatesAtTurn;
  return event as Compaction;
}

/**
 * Plans a validated call against the conversation as stored (this turn's earlier calls and their
 * deferred compactions included); see the module comment.
 */
export function planCompactCall(
  events: readonly ConversationEvent[],
  rules: readonly CompactToolRule[],
  options: PlanCompactCallOptions,
): CompactToolPlan {
  const turnCount = countTurns(events);
  if (turnCount < 2) {
    return {
      ok: false,
      message: "Nothing to compact: the conversation has no turn before the one in progress.",
    };
  }
  // Quotes resolve against what the model was shown: deferred compactions are not in effect yet.
  const shown = projectConversation(events);
  const activatesAtTurn = turnCount;
  const planned: PlannedCompactRule[] = [];
  let stream: ConversationEvent[] = [...events];
  for (const [index, rule] of rules.entries()) {
    const range = resolveRuleRange(rule, index, shown, turnCount);
    if (typeof range === "string") return { ok: false, message: range };
    if (rule.summary !== undefined) {
      const conflict = checkSuppliedSummary(stream, range.from, range.to);
      if (conflict !== undefined)
        return { ok: false, message: describeConflict(index, conflict, stream, planned) };
    }
    const compaction = buildEvent(rule, range, options.newEventId(), options.now, activatesAtTurn);
    const before = projectConversation(activateAll(stream));
    stream = [...stream, compaction];
    const after = projectConversation(activateAll(stream));
    const tokensSaved =
      countViewTokens(before, options.countTokens) - countViewTokens(after, options.countTokens);
    planned.push({ index, rule, ...range, compaction, tokensSaved, before, after });
  }
  return { ok: true, rules: planned, activatesAtTurn };
}

// ---------------------------------------------------------------------------------------------
// Rendering: the approval preview, the preview file, and the result the model reads

/** Words in a text (runs of non-space characters). */
export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

/** `turn 3` or `turns 1..14` (1-based). */
export function formatTurnRange(from: number, to: number): string {
  return from === to ? `turn ${from + 1}` : `turns ${from + 1}..${to + 1}`;
}

const TOOL_CALLS_LABELS: Record<ToolCallsMode, string> = {
  strip: "strip tool calls",
  "strip-requests": "strip tool requests",
  "strip-responses": "strip tool responses",
  omit: "omit tool calls",
};

/** What a rule does, e.g. `the assistant's summary (180 words)` or `strip reasoning + omit tool calls`. */
export function describeRuleAction(rule: CompactToolRule): string {
  if (rule.summary !== undefined) return `the assistant's summary (${countWords(rule.summary)} words)`;
  const parts: string[] = [];
  if (rule.reasoning !== undefined) parts.push("strip reasoning");
  if (rule.toolCalls !== undefined) parts.push(TOOL_CALLS_LABELS[rule.toolCalls]);
  return parts.join(" + ");
}

/** `~11.2k tokens smaller`, or `larger` when the rule grows the view. */
export function describeTokenChange(tokensSaved: number): string {
  const size = Math.abs(Math.round(tokensSaved));
  const unit = size === 1 ? "token" : "tokens";
  return `~${formatTokenCount(size)} ${unit} ${tokensSaved >= 0 ? "smaller" : "larger"}`;
}

function turnsInRange(view: ProjectedView, from: number, to: number): ProjectedTurn[] {
  return view.turns.filter((turn) => originOverlaps(turn.origin, from, to));
}

function textsOf(turn: ProjectedTurn): string[] {
  return turn.events
    .map(eventText)
    .filter((text): text is string => text !== undefined && text.trim() !== "");
}

/** The opening words of the range's first turn and the closing words of its last (as shown now). */
export function boundaryExcerpts(planned: PlannedCompactRule, length = 60): { from: string; to: string } {
  const turns = turnsInRange(planned.before, planned.from, planned.to);
  const first = turns.length === 0 ? [] : textsOf(turns[0]!);
  const last = turns.length === 0 ? [] : textsOf(turns[turns.length - 1]!);
  return {
    from: first.length === 0 ? "" : excerptStart(first[0]!, length),
    to: last.length === 0 ? "" : excerptEnd(last[last.length - 1]!, length),
  };
}

function ruleWarnings(rule: CompactToolRule): string[] {
  const warnings: string[] = [];
  if (rule.keepLastRaised) warnings.push("keep_last raised to 1 (the turn in progress is always kept)");
  if (rule.noteCut) warnings.push(`note cut to ${NOTE_MAX_LENGTH} characters`);
  return warnings;
}

/**
 * The approval prompt's text: per rule the raw range, what replaces it, tokens saved, the
 * boundary excerpts, the note, and the preview file's path (`previewPaths[i]`, when written).
 */
export function renderApprovalPreview(
  plan: Extract<CompactToolPlan, { ok: true }>,
  previewPaths: readonly (string | undefined)[] = [],
): string {
  const count = plan.rules.length;
  const lines = [`compact — ${count} rule${count === 1 ? "" : "s"} proposed`, ""];
  for (const planned of plan.rules) {
    const excerpts = boundaryExcerpts(planned);
    const label = `  ${planned.index + 1}. `;
    const indent = " ".repeat(label.length);
    lines.push(
      `${label}${formatTurnRange(planned.from, planned.to)} → ${describeRuleAction(planned.rule)}, ` +
        describeTokenChange(planned.tokensSaved),
    );
    lines.push(`${indent}from     ${JSON.stringify(excerpts.from)}`);
    lines.push(`${indent}to       ${JSON.stringify(excerpts.to)}`);
    lines.push(`${indent}why      ${planned.rule.note}`);
    const path = previewPaths[planned.index];
    if (path !== undefined) lines.push(`${indent}preview  ${path}`);
    for (const warning of ruleWarnings(planned.rule)) lines.push(`${indent}note     ${warning}`);
    lines.push("");
  }
  lines.push(
    `If approved, this is recorded now and takes effect when your next message starts turn ` +
      `${plan.activatesAtTurn + 1}; the rest of this turn is unchanged.`,
  );
  return lines.join("\n");
}

/** A code fence longer than any backtick run inside `text`. */
function fence(text: string, info = ""): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const marker = "`".repeat(longest + 1);
  return `${marker}${info}\n${text}\n${marker}`;
}

function renderDroppedEvent(
  event: TurnEvent,
  toolNames: ReadonlyMap<string, string>,
  inSummary: boolean,
): string | undefined {
  switch (event.type) {
    case "chat_request":
      return inSummary ? undefined : `**User**\n\n${event.content}`;
    case "chat_response":
      if (inSummary) return `**Summary**\n\n${event.message ?? ""}`;
      if (event.reasoning !== undefined) return `**Reasoning**\n\n${event.reasoning}`;
      return `**Assistant**\n\n${event.message ?? fence(JSON.stringify(event.data ?? null, null, 2), "json")}`;
    case "tool_call_request":
      return `**Tool call \`${event.name}\`**\n\n${fence(JSON.stringify(event.arguments, null, 2), "json")}`;
    case "tool_call_response": {
      const name = toolNames.get(event.call_id) ?? "unknown";
      return `**Tool result \`${name}\`${event.is_error ? " (error)" : ""}**\n\n${fence(event.content)}`;
    }
    default:
      return undefined;
  }
}

/** The events of `turn` that the rule removes or changes, rendered, oldest first. */
function droppedSections(
  turn: ProjectedTurn,
  remaining: ReadonlyMap<string, string>,
  toolNames: ReadonlyMap<string, string>,
): string[] {
  const inSummary = turn.origin.kind === "summary";
  const sections: string[] = [];
  for (const event of turn.events) {
    if (remaining.get(event.id) === JSON.stringify(event)) continue;
    const rendered = renderDroppedEvent(event, toolNames, inSummary);
    if (rendered !== undefined) sections.push(rendered);
  }
  return sections;
}

/**
 * The preview file of one rule (Markdown): the note, the replacement summary, and every piece of
 * the current view the rule would remove or change, grouped by turn.
 */
export function renderDroppedContent(planned: PlannedCompactRule, options: { ruleCount: number }): string {
  const remaining = new Map<string, string>();
  for (const event of planned.after.events) {
    if (isTurnEvent(event)) remaining.set(event.id, JSON.stringify(event));
  }
  const toolNames = new Map<string, string>();
  for (const event of planned.before.events) {
    if (event.type === "tool_call_request") toolNames.set(event.call_id, event.name);
  }
  const range = formatTurnRange(planned.from, planned.to);
  const parts = [
    `# compact: rule ${planned.index + 1} of ${options.ruleCount}, ${range}`,
    `Why: ${planned.rule.note}`,
    `Action: ${describeRuleAction(planned.rule)}, ${describeTokenChange(planned.tokensSaved)}.`,
  ];
  if (planned.rule.summary !== undefined) {
    parts.push(`## Replacement summary (${countWords(planned.rule.summary)} words)`, planned.rule.summary);
  }
  parts.push("## What the model would no longer see");
  let dropped = 0;
  for (const turn of turnsInRange(planned.before, planned.from, planned.to)) {
    const sections = droppedSections(turn, remaining, toolNames);
    if (sections.length === 0) continue;
    dropped += sections.length;
    const heading =
      turn.origin.kind === "kept" ? `Turn ${turn.origin.turn + 1}` : describeOrigin(turn.origin);
    parts.push(`### ${heading.charAt(0).toUpperCase()}${heading.slice(1)}`, ...sections);
  }
  if (dropped === 0)
    parts.push("Nothing: the current view of these turns already has nothing this rule removes.");
  return `${parts.join("\n\n")}\n`;
}

/** The tool result after the compactions were recorded. */
export function describeRecordedCall(plan: Extract<CompactToolPlan, { ok: true }>): string {
  const count = plan.rules.length;
  const lines = [
    `Recorded ${count} compaction${count === 1 ? "" : "s"}. ${count === 1 ? "It takes" : "They take"} effect ` +
      `when the user's next message starts turn ${plan.activatesAtTurn + 1}; the rest of this turn still ` +
      "sees the conversation uncompacted.",
  ];
  for (const planned of plan.rules) {
    const warnings = ruleWarnings(planned.rule);
    lines.push(
      `${planned.index + 1}. ${formatTurnRange(planned.from, planned.to)}: ${describeRuleAction(planned.rule)}, ` +
        `${describeTokenChange(planned.tokensSaved)}${warnings.length === 0 ? "" : ` (${warnings.join("; ")})`}.`,
    );
  }
  return lines.join("\n");
}
