/**
 * What every compaction keeps by construction (docs/compaction.md, "What a compaction keeps";
 * docs/decisions/010-facts-and-pins.md). Pure.
 *
 * - The facts block of a summary: the range's files read and modified and the user's binding
 *   sentences, built from its raw events (compaction/core/summary/range-facts.ts), within a character budget
 *   (`conversation.compaction.summary.facts.max_characters`, default 12000; 0 turns it off).
 * - Keep rules (`[[conversation.compaction.keep]]`): patterns of messages that must always stay,
 *   e.g. every user message containing "must" or "never". A compaction written while they are
 *   configured records the messages of its range they match (`pinned_events`), and those are kept
 *   as pinned ones are (core/conversation/pins.ts).
 *
 * ```toml
 * [[conversation.compaction.keep]]
 * contains = ["must", "never"]   # whole words or phrases, any case; or pattern = "<regex>"
 * only = "user"                  # user (default) | assistant | results
 * ```
 */
import { type ConfigTable, isConfigTable, lookupConfig } from "../../core/config.js";
import { compactionPolicies, type CycleRange, selectRange } from "../../core/conversation/cycles.js";
import {
  ADVISOR_AUTHOR,
  type Compaction,
  type ConversationEvent,
  eventText,
  type PinPart,
  type TurnEvent,
} from "../../core/conversation/events.js";
import type { ProjectedView } from "../../core/conversation/projection.js";
import { countEventTokens, type TokenCounter } from "../../core/conversation/tokens.js";
import { messagePart } from "../../core/conversation/pins.js";
import { FACTS_HEADING } from "../../core/conversation/summary-message.js";
import type { Turn } from "../../core/conversation/turns.js";
import type { Parsed } from "../../core/parsed.js";
import type { CompactionShape } from "./event.js";
import { extractRangeFacts, renderRangeFacts } from "./summary/range-facts.js";

/** The configuration key of the keep rules. */
export const KEEP_RULES_KEY = "conversation.compaction.keep";
/** The configuration key of the facts block's budget. */
export const FACTS_BUDGET_KEY = "conversation.compaction.summary.facts.max_characters";
/** The facts block's budget when none is configured: about 3,500 tokens of paths at most. */
export const DEFAULT_FACTS_CHARACTERS = 12000;

/** One keep rule: the messages of a part whose text matches. */
export interface KeepRule {
  readonly only: PinPart;
  /** Case-insensitive; from `contains` (whole words) or `pattern`. */
  readonly pattern: RegExp;
  /** The rule as configured, for messages. */
  readonly source: string;
}

/** What a plan keeps besides pins: the facts block's budget and working directory, the keep rules. */
export interface Keeping {
  /** The most characters a facts block may have; 0: no facts block. */
  readonly factsCharacters: number;
  /** The session's working directory: absolute paths under it are given relative to it. */
  readonly cwd?: string;
  readonly rules: readonly KeepRule[];
}

/** What a plan keeps when nothing is configured. */
export const DEFAULT_KEEPING: Keeping = Object.freeze({
  factsCharacters: DEFAULT_FACTS_CHARACTERS,
  rules: Object.freeze([]) as readonly KeepRule[],
});

const PARTS: readonly PinPart[] = ["user", "assistant", "results"];

/** Reads the facts budget and the keep rules from configuration; the message names the first problem. */
export function readKeeping(config: ConfigTable, cwd?: string): Parsed<Keeping> {
  const budget = lookupConfig(config, FACTS_BUDGET_KEY);
  if (budget !== undefined && !(typeof budget === "number" && Number.isInteger(budget) && budget >= 0)) {
    return {
      ok: false,
      message: `${FACTS_BUDGET_KEY} must be a whole number of characters (0: no facts block)`,
    };
  }
  const rules = readKeepRules(lookupConfig(config, KEEP_RULES_KEY));
  if (!rules.ok) return rules;
  return {
    ok: true,
    value: {
      factsCharacters: budget ?? DEFAULT_FACTS_CHARACTERS,
      ...(cwd === undefined ? {} : { cwd }),
      rules: rules.value,
    },
  };
}

/** Reads `conversation.compaction.keep` (a list of tables, or absent). */
export function readKeepRules(value: unknown): Parsed<KeepRule[]> {
  if (value === undefined) return { ok: true, value: [] };
  if (!Array.isArray(value))
    return { ok: false, message: `${KEEP_RULES_KEY} must be a list of rules ([[${KEEP_RULES_KEY}]])` };
  const rules: KeepRule[] = [];
  for (const [index, entry] of value.entries()) {
    const where = `${KEEP_RULES_KEY}[${index}]`;
    if (!isConfigTable(entry)) return { ok: false, message: `${where} must be a table` };
    const only = entry.only ?? "user";
    if (typeof only !== "string" || !PARTS.includes(only as PinPart)) {
      return { ok: false, message: `${where}.only must be "user", "assistant" or "results"` };
    }
    const hasContains = entry.contains !== undefined;
    const hasPattern = entry.pattern !== undefined;
    if (hasContains === hasPattern) {
      return {
        ok: false,
        message: `${where} needs exactly one of \`contains\` (words) or \`pattern\` (a regular expression)`,
      };
    }
    const pattern = hasPattern ? patternOf(entry.pattern) : containsPattern(entry.contains);
    if (!pattern.ok) return { ok: false, message: `${where}: ${pattern.message}` };
    rules.push({
      only: only as PinPart,
      pattern: pattern.value,
      source: hasPattern ? `pattern ${String(entry.pattern)}` : `contains ${JSON.stringify(entry.contains)}`,
    });
  }
  return { ok: true, value: rules };
}

function patternOf(value: unknown): Parsed<RegExp> {
  if (typeof value !== "string" || value === "")
    return { ok: false, message: "`pattern` must be a non-empty string" };
  try {
    return { ok: true, value: new RegExp(value, "iu") };
  } catch (error) {
    return { ok: false, message: `\`pattern\` is not a regular expression (${(error as Error).message})` };
  }
}

function containsPattern(value: unknown): Parsed<RegExp> {
  const words = typeof value === "string" ? [value] : value;
  if (
    !Array.isArray(words) ||
    words.length === 0 ||
    !words.every((word) => typeof word === "string" && word.trim() !== "")
  ) {
    return { ok: false, message: "`contains` must be a word or a list of words" };
  }
  const escaped = (words as string[]).map((word) =>
    word
      .trim()
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      .replace(/\s+/g, "\\s+"),
  );
  return {
    ok: true,
    value: new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join("|")})(?![\\p{L}\\p{N}_])`, "iu"),
  };
}

/** The text a keep rule reads of a message. */
function textOf(event: TurnEvent): string | undefined {
  if (event.type === "chat_request" && event.author === ADVISOR_AUTHOR) return undefined;
  // A reply's reasoning and data are not what a rule's words are matched against.
  if (event.type === "chat_response") return event.message;
  return eventText(event);
}

/** The ids of the messages of `range` the rules match, in stream order. */
export function matchKeepRules(
  turns: readonly Turn[],
  range: CycleRange,
  rules: readonly KeepRule[],
): string[] {
  if (rules.length === 0) return [];
  const matched: string[] = [];
  for (const turn of selectRange(turns, range)) {
    for (const event of turn.events) {
      const part = messagePart(event);
      if (part === undefined) continue;
      const text = textOf(event);
      if (text === undefined) continue;
      if (rules.some((rule) => rule.only === part && rule.pattern.test(text))) matched.push(event.id);
    }
  }
  return matched;
}

/** The facts block of a summary of `range` (empty when there are no facts or no budget). */
export function factsBlock(turns: readonly Turn[], range: CycleRange, keeping: Keeping): string {
  if (keeping.factsCharacters <= 0) return "";
  const facts = extractRangeFacts(
    selectRange(turns, range),
    keeping.cwd === undefined ? {} : { cwd: keeping.cwd },
  );
  return renderRangeFacts(facts, { maxCharacters: keeping.factsCharacters, heading: FACTS_HEADING }).text;
}

/**
 * True when a planned compaction would change nothing but pinned messages: every event its
 * policies touch in its range is pinned, and there is at least one (a range with nothing to touch
 * at all is left to compact as before, jp's behaviour). A summary touches every message and the
 * reasoning; `reasoning` the reasoning; `tool_calls` the requests and results it strips or omits.
 */
export function touchesOnlyPinned(
  turns: readonly Turn[],
  shape: CompactionShape & CycleRange,
  pinned: ReadonlySet<string>,
): boolean {
  if (pinned.size === 0) return false;
  const summarized = shape.summary !== undefined || shape.supplied !== undefined;
  const tools = shape.toolCalls;
  let touchedPinned = false;
  for (const turn of selectRange(turns, shape)) {
    for (const event of turn.events) {
      const reasoning = event.type === "chat_response" && event.reasoning !== undefined;
      const touched = summarized
        ? reasoning || messagePart(event) !== undefined
        : (reasoning && shape.reasoning !== undefined) ||
          (event.type === "tool_call_request" &&
            tools !== undefined &&
            (tools.policy === "omit" || tools.request)) ||
          (event.type === "tool_call_response" &&
            tools !== undefined &&
            (tools.policy === "omit" || tools.response));
      if (!touched) continue;
      if (!pinned.has(event.id)) return false;
      touchedPinned = true;
    }
  }
  return touchedPinned;
}

/** What keeping costs in a projected view: pinned messages and facts blocks, in tokens. */
export interface KeptCost {
  /** Pinned messages in the view (kept in place or shown after a summary) and their tokens. */
  readonly pinned: { readonly messages: number; readonly tokens: number };
  /** Summaries in the view with a facts block, and the blocks' tokens. */
  readonly facts: { readonly blocks: number; readonly tokens: number };
}

/** The cost of what `events`' view keeps by construction (stats). */
export function keptCost(
  events: readonly ConversationEvent[],
  view: ProjectedView,
  countTokens: TokenCounter,
): KeptCost {
  let messages = 0;
  let pinnedTokens = 0;
  const count = (event: TurnEvent) => {
    messages += 1;
    pinnedTokens += countEventTokens(event, countTokens);
  };
  const compactions = new Map<string, Compaction>();
  for (const event of events) if (event.type === "compaction") compactions.set(event.id, event);
  const summaryIds: string[] = [];
  for (const turn of view.turns) {
    if (turn.origin.kind === "summary") summaryIds.push(turn.origin.compactionId);
    for (const entry of turn.pinnedEvents ?? []) count(entry.event);
    for (const summary of turn.cycleSummaries ?? []) {
      summaryIds.push(summary.compactionId);
      for (const entry of summary.pinnedEvents ?? []) count(entry.event);
    }
    if (view.pinned.size === 0) continue;
    for (const event of turn.events) if (view.pinned.has(event.id)) count(event);
  }
  let blocks = 0;
  let factsTokens = 0;
  for (const id of summaryIds) {
    const compaction = compactions.get(id);
    const facts = compaction === undefined ? undefined : compactionPolicies(compaction).summary?.facts;
    if (facts === undefined || facts === "") continue;
    blocks += 1;
    factsTokens += countTokens(facts);
  }
  return { pinned: { messages, tokens: pinnedTokens }, facts: { blocks, tokens: factsTokens } };
}
