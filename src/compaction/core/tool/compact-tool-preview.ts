/**
 * The texts of the assistant's `compact` tool (docs/compact-tool.md): the approval preview shown to the user,
 * the preview file of each rule (what the model would no longer see), and the tool result the
 * model reads once the compactions are recorded. Pure.
 */
import { eventText } from "../../../core/conversation/events.js";
import { describeOrigin, excerptEnd, excerptStart } from "./anchors.js";
import { type CompactToolRule, NOTE_MAX_LENGTH } from "./compact-tool-arguments.js";
import type { CompactToolPlan, PlannedCompactRule } from "./compact-tool-plan.js";
import { isTurnEvent, type TurnEvent } from "../../../core/conversation/events.js";
import { capitalize, describeOwnTurnRange, describeRange } from "../../../core/present/labels.js";
import {
  originOverlaps,
  type ProjectedTurn,
  type ProjectedView,
} from "../../../core/conversation/projection.js";
import type { ToolCallsMode } from "../rules.js";
import { formatLosses } from "../summary/summary-check-text.js";
import { formatTokenCount } from "../../../core/conversation/tokens.js";

/** Words in a text (runs of non-space characters). */
export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

/** `turns 3..3` or `turns 1..14` from 0-based indices. */
export function formatTurnRange(from: number, to: number): string {
  return describeOwnTurnRange(from + 1, to + 1);
}

/** A planned rule's range: `turns 1..14`, or with cycles `turn 5, cycles 2..9` (1-based). */
export function formatRuleRange(planned: PlannedCompactRule): string {
  if (planned.fromCycle === undefined && planned.toCycle === undefined) {
    return formatTurnRange(planned.from, planned.to);
  }
  return describeRange(planned);
}

const TOOL_CALLS_LABELS: Record<ToolCallsMode, string> = {
  strip: "strip tool calls",
  "strip-requests": "strip tool requests",
  "strip-responses": "strip tool responses",
  omit: "omit tool calls",
};

/** `1 word`, `180 words`. */
function wordCount(text: string): string {
  const words = countWords(text);
  return words === 1 ? "1 word" : `${words} words`;
}

/** What a rule does, e.g. `the assistant's summary (180 words)` or `strip reasoning + omit tool calls`. */
export function describeRuleAction(rule: CompactToolRule): string {
  if (rule.summary !== undefined) return `the assistant's summary (${wordCount(rule.summary)})`;
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

/** The texts of the events a rule removes or changes, as shown now, oldest first. */
function changedTexts(planned: PlannedCompactRule): string[] {
  const remaining = new Map<string, string>();
  for (const event of planned.after.events) {
    if (isTurnEvent(event)) remaining.set(event.id, JSON.stringify(event));
  }
  return turnsInRange(planned.before, planned.from, planned.to)
    .flatMap((turn) => turn.events)
    .filter((event) => remaining.get(event.id) !== JSON.stringify(event))
    .map(eventText)
    .filter((text): text is string => text !== undefined && text.trim() !== "");
}

/**
 * The opening words of the range's first turn and the closing words of its last (as shown now);
 * for a range with cycles, of the first and last piece of content it removes or changes.
 */
export function boundaryExcerpts(planned: PlannedCompactRule, length = 60): { from: string; to: string } {
  if (planned.fromCycle !== undefined || planned.toCycle !== undefined) {
    const changed = changedTexts(planned);
    return {
      from: changed.length === 0 ? "" : excerptStart(changed[0]!, length),
      to: changed.length === 0 ? "" : excerptEnd(changed[changed.length - 1]!, length),
    };
  }
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
      `${label}${formatRuleRange(planned)} → ${describeRuleAction(planned.rule)}, ` +
        describeTokenChange(planned.tokensSaved),
    );
    lines.push(`${indent}from     ${JSON.stringify(excerpts.from)}`);
    lines.push(`${indent}to       ${JSON.stringify(excerpts.to)}`);
    lines.push(`${indent}why      ${planned.rule.note}`);
    const path = previewPaths[planned.index];
    if (path !== undefined) lines.push(`${indent}preview  ${path}`);
    for (const warning of ruleWarnings(planned.rule)) lines.push(`${indent}note     ${warning}`);
    if (planned.losses !== undefined) {
      const [heading, ...items] = formatLosses(planned.losses, {
        title: `the summary of ${formatTurnRange(planned.from, planned.to)}`,
        indent: `${indent}         `,
      });
      lines.push(`${indent}check    ${capitalize(heading!)}`, ...items);
    }
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
  const range = formatRuleRange(planned);
  const parts = [
    `# compact: rule ${planned.index + 1} of ${options.ruleCount}, ${range}`,
    `Why: ${planned.rule.note}`,
    `Action: ${describeRuleAction(planned.rule)}, ${describeTokenChange(planned.tokensSaved)}.`,
  ];
  if (planned.rule.summary !== undefined) {
    parts.push(`## Replacement summary (${wordCount(planned.rule.summary)})`, planned.rule.summary);
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
/**
 * The terminal's one line for a recorded call (`↳ ok: …`): what was recorded, when it takes
 * effect, and the summary check's count, which the result text only reaches after a few lines.
 */
export function summarizeRecordedCall(plan: Extract<CompactToolPlan, { ok: true }>): string {
  const count = plan.rules.length;
  const head = `recorded ${count} compaction${count === 1 ? "" : "s"}, taking effect at turn ${plan.activatesAtTurn + 1}`;
  const checked = plan.rules.filter((planned) => planned.losses !== undefined);
  if (checked.length === 0) return head;
  const left = checked.reduce((sum, planned) => sum + planned.losses!.items.length, 0);
  const check =
    left === 0
      ? "the summary check: nothing left out"
      : `the summary check: ${left} ${left === 1 ? "item" : "items"} left out (the model sees the list)`;
  return `${head}; ${check}`;
}

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
      `${planned.index + 1}. ${formatRuleRange(planned)}: ${describeRuleAction(planned.rule)}, ` +
        `${describeTokenChange(planned.tokensSaved)}${warnings.length === 0 ? "" : ` (${warnings.join("; ")})`}.`,
    );
  }
  // The summary check, so the assistant can mend its own summary before it takes effect.
  let missing = false;
  for (const planned of plan.rules) {
    if (planned.losses === undefined) continue;
    missing ||= planned.losses.items.length > 0;
    lines.push(
      ...formatLosses(planned.losses, {
        title: `The summary of rule ${planned.index + 1} (${formatTurnRange(planned.from, planned.to)})`,
      }),
    );
  }
  if (missing) {
    lines.push(
      "If any of these matter for the rest of the work, call compact again for the same turns with a summary " +
        "that includes them; the newer summary replaces this one.",
    );
  }
  return lines.join("\n");
}
