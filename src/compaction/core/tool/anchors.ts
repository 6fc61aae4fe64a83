/**
 * Quote anchors: resolving a verbatim excerpt the assistant quoted (`before_quote`/`after_quote`
 * of the `compact` tool) to the raw turn it came from (docs/compact-tool.md, "Quotes"). Pure.
 *
 * The assistant cannot see turn numbers, but it can reproduce text it was shown. So a quote is
 * searched in the *projected* view (what the model was actually sent) and the projected turn it
 * lands in is mapped back to a raw turn through the view's turn origins. Four outcomes:
 *
 * - found: the quote occurs in exactly one projected turn, a kept raw turn;
 * - not found: it occurs nowhere (a paraphrase, or a typo);
 * - ambiguous: it occurs in several turns; each candidate comes with an excerpt so the assistant
 *   can quote a longer, distinctive passage instead;
 * - already compacted: it occurs only inside a summary turn. A summary cannot be split, so the
 *   quote is refused rather than silently widened to the summary's range.
 *
 * Matching is literal and case-sensitive after two normalizations that models routinely apply
 * when copying text: runs of whitespace count as one space, and typographic quotes and
 * apostrophes count as their ASCII forms. The error texts are written for the model: they say
 * what went wrong and what to send instead.
 */
import { eventText, type TurnEvent } from "../../../core/conversation/events.js";
import type { ProjectedTurn, ProjectedView, TurnOrigin } from "../../../core/conversation/projection.js";

/** One turn a quote was found in, with the text around the match. */
export interface AnchorCandidate {
  /** Where the projected turn came from (a raw turn, or a summary of raw turns). */
  readonly origin: TurnOrigin;
  /** In the turn in progress: the raw cycle the match is in (`HEAD`: the user's message). */
  readonly cycle?: number;
  /** About 80 characters around the first match in that turn, whitespace collapsed. */
  readonly excerpt: string;
}

/** The outcome of resolving a quote. Turn numbers are 0-based raw turn indices. */
export type AnchorResolution =
  | {
      readonly kind: "found";
      readonly turn: number;
      /** Set for a quote in the turn in progress: its raw cycle (`HEAD`: the user's message). */
      readonly cycle?: number;
      readonly excerpt: string;
    }
  | { readonly kind: "not-found"; readonly message: string }
  | { readonly kind: "ambiguous"; readonly candidates: readonly AnchorCandidate[]; readonly message: string }
  | {
      readonly kind: "already-compacted";
      readonly from: number;
      readonly to: number;
      readonly compactionId: string;
      readonly message: string;
    };

/** Options of `resolveAnchor`. */
export interface ResolveAnchorOptions {
  /** The argument name used in messages (`before_quote`, `after_quote`). Default `quote`. */
  readonly field?: string;
  /**
   * Tool calls by these names are not searched: the `compact` tool's own calls carry the quotes
   * as arguments, and its results echo excerpts, so they would match every quote.
   */
  readonly ignoredToolNames?: ReadonlySet<string>;
  /**
   * Raw index of the turn in progress. Without `inProgressCycles` only the user's message is
   * searched there: the assistant's own text in that turn usually repeats the quote while
   * announcing the call.
   */
  readonly inProgressTurn?: number;
  /**
   * The raw cycles of the turn in progress (docs/compact-tool.md, "Inside the turn in progress"):
   * its user's message and every cycle but the calling one are searched, each its own candidate,
   * and a match names its cycle. Events not in `cycleOf` (a summary standing in the turn) are not
   * searched.
   */
  readonly inProgressCycles?: {
    /** The raw cycle of each event of the turn in progress, by event id (`HEAD` for its head). */
    readonly cycleOf: ReadonlyMap<string, number>;
    /** The cycle holding the call being planned; never searched. */
    readonly callingCycle: number;
  };
}

/** The most candidates an ambiguity message lists. */
const MAX_LISTED_CANDIDATES = 8;
/** Characters of context on each side of a match in an excerpt. */
const EXCERPT_CONTEXT = 30;
/** The most characters of the match itself shown in an excerpt. */
const EXCERPT_MATCH_LIMIT = 60;

/** Collapses whitespace runs to one space, trims, and folds typographic quotes to ASCII. */
export function normalizeQuoteText(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

function isSearchedEvent(
  event: TurnEvent,
  inProgress: boolean,
  ignoredCalls: ReadonlySet<string>,
  ignoredToolNames: ReadonlySet<string>,
): boolean {
  if (inProgress && event.type !== "chat_request") return false;
  if (event.type === "tool_call_request") return !ignoredToolNames.has(event.name);
  if (event.type === "tool_call_response") return !ignoredCalls.has(event.call_id);
  return true;
}

function isInProgress(turn: ProjectedTurn, options: ResolveAnchorOptions): boolean {
  return turn.origin.kind === "kept" && turn.origin.turn === options.inProgressTurn;
}

/** The normalized, searchable text of one projected turn (its events joined by a space). */
function searchableText(
  turn: ProjectedTurn,
  ignoredCalls: ReadonlySet<string>,
  options: ResolveAnchorOptions,
): string {
  const inProgress = isInProgress(turn, options);
  const ignoredToolNames = options.ignoredToolNames ?? new Set<string>();
  const parts: string[] = [];
  for (const event of turn.events) {
    if (!isSearchedEvent(event, inProgress, ignoredCalls, ignoredToolNames)) continue;
    const text = eventText(event);
    if (text !== undefined) parts.push(text);
  }
  return normalizeQuoteText(parts.join("\n"));
}

/**
 * The searchable texts of the turn in progress, one per raw cycle (the head first), every cycle
 * but the calling one (see `ResolveAnchorOptions.inProgressCycles`).
 */
function searchableCycles(
  turn: ProjectedTurn,
  ignoredCalls: ReadonlySet<string>,
  options: ResolveAnchorOptions,
  cycles: NonNullable<ResolveAnchorOptions["inProgressCycles"]>,
): { cycle: number; text: string }[] {
  const ignoredToolNames = options.ignoredToolNames ?? new Set<string>();
  const parts = new Map<number, string[]>();
  for (const event of turn.events) {
    const cycle = cycles.cycleOf.get(event.id);
    if (cycle === undefined || cycle === cycles.callingCycle) continue;
    if (!isSearchedEvent(event, false, ignoredCalls, ignoredToolNames)) continue;
    const text = eventText(event);
    if (text === undefined) continue;
    parts.set(cycle, [...(parts.get(cycle) ?? []), text]);
  }
  return [...parts.entries()]
    .sort(([left], [right]) => left - right)
    .map(([cycle, texts]) => ({ cycle, text: normalizeQuoteText(texts.join("\n")) }));
}

/** A window of `text` around the match at `at`, `…` where cut. */
export function cutAroundMatch(text: string, at: number, length: number): string {
  const start = Math.max(0, at - EXCERPT_CONTEXT);
  const end = Math.min(text.length, at + Math.min(length, EXCERPT_MATCH_LIMIT) + EXCERPT_CONTEXT);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/** How far back from the cut an excerpt looks for a word boundary to end on. */
const WORD_BOUNDARY_SLACK = 15;

/** The first `length` characters of a text with whitespace collapsed, `…` when cut (at a word end when near). */
export function excerptStart(text: string, length: number): string {
  const normalized = normalizeQuoteText(text);
  if (normalized.length <= length) return normalized;
  let cut = length;
  const space = normalized.lastIndexOf(" ", length);
  if (normalized[length] !== " " && space >= length - WORD_BOUNDARY_SLACK && space > 0) cut = space;
  return `${normalized.slice(0, cut).trimEnd()}…`;
}

/** The last `length` characters of a text with whitespace collapsed, `…` when cut (at a word start when near). */
export function excerptEnd(text: string, length: number): string {
  const normalized = normalizeQuoteText(text);
  if (normalized.length <= length) return normalized;
  let cut = normalized.length - length;
  const space = normalized.indexOf(" ", cut);
  if (normalized[cut - 1] !== " " && space >= 0 && space <= cut + WORD_BOUNDARY_SLACK) cut = space + 1;
  return `…${normalized.slice(cut).trimStart()}`;
}

/** How a candidate turn is named to the model and the user (1-based). */
export function describeOrigin(origin: TurnOrigin): string {
  return origin.kind === "kept"
    ? `turn ${origin.turn + 1}`
    : `the summary of turns ${origin.from + 1}..${origin.to + 1}`;
}

/** A candidate's name: its turn, and in the turn in progress its cycle or the user's message. */
function describeCandidate(candidate: AnchorCandidate): string {
  const turn = describeOrigin(candidate.origin);
  if (candidate.cycle === undefined) return turn;
  return candidate.cycle < 0 ? `${turn} (the user's message)` : `${turn}, cycle ${candidate.cycle + 1}`;
}

function callIdsOf(view: ProjectedView, ignoredToolNames: ReadonlySet<string>): Set<string> {
  const ids = new Set<string>();
  for (const event of view.events) {
    if (event.type === "tool_call_request" && ignoredToolNames.has(event.name)) ids.add(event.call_id);
  }
  return ids;
}

/** Every projected turn the normalized quote occurs in, with an excerpt of its first match. */
function findCandidates(
  view: ProjectedView,
  needle: string,
  options: ResolveAnchorOptions,
): AnchorCandidate[] {
  const ignoredCalls = callIdsOf(view, options.ignoredToolNames ?? new Set());
  const candidates: AnchorCandidate[] = [];
  for (const turn of view.turns) {
    if (options.inProgressCycles !== undefined && isInProgress(turn, options)) {
      for (const { cycle, text } of searchableCycles(turn, ignoredCalls, options, options.inProgressCycles)) {
        const at = text.indexOf(needle);
        if (at >= 0) {
          candidates.push({ origin: turn.origin, cycle, excerpt: cutAroundMatch(text, at, needle.length) });
        }
      }
      continue;
    }
    const text = searchableText(turn, ignoredCalls, options);
    const at = text.indexOf(needle);
    if (at >= 0) candidates.push({ origin: turn.origin, excerpt: cutAroundMatch(text, at, needle.length) });
  }
  return candidates;
}

function quoted(text: string): string {
  return JSON.stringify(excerptStart(text, 80));
}

function notFoundMessage(
  field: string,
  quote: string,
  view: ProjectedView,
  options: ResolveAnchorOptions,
): string {
  const lower = normalizeQuoteText(quote).toLowerCase();
  const ignoredCalls = callIdsOf(view, options.ignoredToolNames ?? new Set());
  const nearMiss = view.turns.find((turn) =>
    searchableText(turn, ignoredCalls, options).toLowerCase().includes(lower),
  );
  const hint =
    nearMiss === undefined
      ? ""
      : ` It does occur with different capitalization in ${describeOrigin(nearMiss.origin)}; copy the exact text.`;
  return (
    `${field} ${quoted(quote)} was not found in the conversation.${hint} ` +
    "Copy a passage verbatim from a message you were shown (whitespace may differ), or use keep_first/keep_last."
  );
}

function ambiguousMessage(field: string, quote: string, candidates: readonly AnchorCandidate[]): string {
  const where = candidates.some((candidate) => candidate.cycle !== undefined) ? "places" : "turns";
  const listed = candidates
    .slice(0, MAX_LISTED_CANDIDATES)
    .map((candidate) => `- ${describeCandidate(candidate)}: ${JSON.stringify(candidate.excerpt)}`);
  if (candidates.length > MAX_LISTED_CANDIDATES) {
    listed.push(`- and ${candidates.length - MAX_LISTED_CANDIDATES} more`);
  }
  return (
    `${field} ${quoted(quote)} is ambiguous: it appears in ${candidates.length} ${where}:\n${listed.join("\n")}\n` +
    "Quote a longer or more distinctive passage that appears in only one of them."
  );
}

function alreadyCompactedMessage(field: string, quote: string, from: number, to: number): string {
  return (
    `${field} ${quoted(quote)} is inside the summary of turns ${from + 1}..${to + 1}, which is already ` +
    "compacted; a summary cannot be split. Quote text from outside that summary, or propose a rule " +
    "whose range covers the whole summary."
  );
}

/** Resolves a quote against the projected view; see the module comment. */
export function resolveAnchor(
  view: ProjectedView,
  quote: string,
  options: ResolveAnchorOptions = {},
): AnchorResolution {
  const field = options.field ?? "quote";
  const needle = normalizeQuoteText(quote);
  if (needle.length === 0) return { kind: "not-found", message: `${field} is empty; quote some text.` };
  const candidates = findCandidates(view, needle, options);
  if (candidates.length === 0) {
    return { kind: "not-found", message: notFoundMessage(field, quote, view, options) };
  }
  if (candidates.length > 1) {
    return { kind: "ambiguous", candidates, message: ambiguousMessage(field, quote, candidates) };
  }
  const only = candidates[0]!;
  if (only.origin.kind === "summary") {
    const { from, to, compactionId } = only.origin;
    return {
      kind: "already-compacted",
      from,
      to,
      compactionId,
      message: alreadyCompactedMessage(field, quote, from, to),
    };
  }
  return {
    kind: "found",
    turn: only.origin.turn,
    ...(only.cycle === undefined ? {} : { cycle: only.cycle }),
    excerpt: only.excerpt,
  };
}
