/**
 * Recall: what a compaction hid from the model, listed, read back verbatim and searched
 * (docs/recall.md). Pure.
 *
 * Projection (projection.ts) decides what the model sees; everything of the raw log it leaves out
 * or changes is *hidden*: the turns and cycles a summary stands for, tool results and arguments a
 * mechanical policy stripped, calls it omitted, reasoning it dropped. Pinned messages a summary
 * shows verbatim are not hidden. A stored event unchanged in the view is the same object there,
 * a changed one keeps its id, and a hidden one is absent: that is how hidden content is told here.
 *
 * - The **recall index** lists each hidden item on one line, in the 1-based turn numbering of
 *   `print` and the review (docs/review.md), calls numbered from 1 within their turn: `turns 1..5: summarized (12 calls, 48.2k chars)`,
 *   `turn 7, call 2: read_file src/lexer.ts (1.6k chars)`, `turns 2..6: reasoning (9.1k chars)`.
 *   The text before the colon is the item's **reference**.
 * - A reference (`turn 2`, `turns 1..5`, `turn 2, call 1`, `turn 4, cycles 2..6`) reads the raw
 *   content back: user and assistant text, reasoning, tool calls with their arguments and their
 *   results, each exactly as stored (what the model was first sent), paged under a character
 *   budget. A reference outside the conversation, or to nothing hidden, is an error the model can
 *   act on.
 * - A query (text, or `/pattern/flags`) searches the hidden content only and returns snippets
 *   with their references, newest first. A pattern is the model's own regular expression: the
 *   shell runs it under a time limit (src/tools/recall.ts); this module only takes the matches.
 * - What the user excluded (`recall_exclusion` events, `conversation.recall.exclude` patterns) is
 *   never read: an excluded turn or call is left out of the index and the search and refused by
 *   reference, and every match of an excluded pattern reads `[not recallable]`.
 *
 * Where two sources of recall can meet (an agent's session exported from a cxc conversation), a
 * reference names its own: `source` prefixes every reference (`cxc 01k3… turn 3, call 1`).
 */
import { buildCompactionEvent } from "../../compaction/core/event.js";
import { HEAD, layoutCycles, TURN_END } from "./cycles.js";
import {
  type ConversationEvent,
  isTurnEvent,
  type RecallExclusion,
  type ToolCallRequest,
  type ToolCallResponse,
  type TurnEvent,
} from "./events.js";
import { type ProjectedView, projectConversation } from "./projection.js";
import { countTurns } from "./turns.js";

/** The default and the least character budget of one page of a recall result. */
export const DEFAULT_RECALL_PAGE_CHARACTERS = 8000;
export const MINIMUM_RECALL_PAGE_CHARACTERS = 4000;
/** The most lines the index lists before it folds its oldest items into one line. */
export const DEFAULT_RECALL_INDEX_LINES = 100;
/** What stands where excluded text was. */
export const NOT_RECALLABLE = "[not recallable]";
/** The first line of the index, in a request and wherever it is shown. */
export const RECALL_INDEX_HEADING =
  "[Recall index: compaction hid these from your context. The recall tool reads one verbatim by its reference (the text before the colon), or searches them all with a query.]";

/** How hidden one stored event is. */
const SHOWN = 0;
const ALTERED = 1;
const HIDDEN = 2;

/** One hidden item: one line of the index. */
export interface RecallItem {
  readonly kind: "summary" | "call" | "reasoning" | "folded";
  /** The reference, without a source: `turns 1..5`, `turn 2, call 1`. */
  readonly reference: string;
  /** What the line says after the reference's colon. */
  readonly description: string;
  /** The raw turns it lies in (0-based, inclusive). */
  readonly fromTurn: number;
  readonly toTurn: number;
  /** The stream position of its last hidden event (orders items; places the index). */
  readonly lastPosition: number;
}

/** One line of the index, as `print --format json` gives it. */
export interface RecallIndexLine {
  readonly reference: string;
  readonly description: string;
}

/** One tool call of a turn: its request and response positions in the stream. */
interface TurnCall {
  readonly request: number;
  readonly response?: number;
}

/** What the user keeps out of recall, resolved against a stream. */
export interface RecallExclusions {
  /** Excluded turns (0-based). */
  readonly turns: ReadonlySet<number>;
  /** Excluded calls, as `turn.call` (turn 0-based, call 1-based). */
  readonly calls: ReadonlySet<string>;
  /** Patterns whose every match is hidden. */
  readonly patterns: readonly RegExp[];
}

/** Nothing excluded. */
export const NO_EXCLUSIONS: RecallExclusions = Object.freeze({
  turns: new Set<number>(),
  calls: new Set<string>(),
  patterns: [],
});

/** Options of `analyzeRecall`. */
export interface RecallOptions {
  /** The projected view of the same events, when the caller has it already. */
  readonly view?: ProjectedView;
  /** Patterns of the configuration (`conversation.recall.exclude`), as written. */
  readonly excludePatterns?: readonly string[];
  /** Prefixes every reference (`cxc 01k3…`); absent: none. */
  readonly source?: string;
  /** The most index lines (default `DEFAULT_RECALL_INDEX_LINES`). */
  readonly maxIndexLines?: number;
}

/** The hidden content of a stream, ready to list, read and search. */
export interface RecallAnalysis {
  readonly events: readonly ConversationEvent[];
  readonly view: ProjectedView;
  readonly turnCount: number;
  readonly turnOf: readonly number[];
  readonly cycleOf: Int32Array;
  /** How hidden each position is (SHOWN, ALTERED, HIDDEN; global entries SHOWN). */
  readonly status: Uint8Array;
  /** Positions that a summary stands for (their calls and reasoning are listed by the summary). */
  readonly summarized: Uint8Array;
  /** The calls of each turn, in order (call N is `calls[turn][N - 1]`). */
  readonly calls: readonly (readonly TurnCall[])[];
  /** The positions of each turn's events, in order. */
  readonly turnPositions: readonly (readonly number[])[];
  /** The call number (1-based) of each request or response position; 0 for others. */
  readonly callNumber: Int32Array;
  /** The hidden items, in stream order, exclusions left out (the index's lines before folding). */
  readonly items: readonly RecallItem[];
  readonly exclusions: RecallExclusions;
  readonly source?: string;
  readonly maxIndexLines: number;
}

/** `1.6k chars`, `980 chars`, `2.4M chars`. */
export function describeCharacters(count: number): string {
  if (count < 1000) return `${count} chars`;
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k chars`;
  return `${(count / 1_000_000).toFixed(1)}M chars`;
}

/** `turn 3` or `turns 3..5` (1-based numbers). */
function turnReference(first: number, last: number): string {
  return first === last ? `turn ${first}` : `turns ${first}..${last}`;
}

/** The characters of what an event carries to the model. */
function contentLength(event: TurnEvent): number {
  switch (event.type) {
    case "chat_request":
      return event.content.length;
    case "chat_response":
      if (event.message !== undefined) return event.message.length;
      if (event.reasoning !== undefined) return event.reasoning.length;
      return event.data === undefined ? 0 : JSON.stringify(event.data).length;
    case "tool_call_request":
      return Object.keys(event.arguments).length === 0 ? 0 : JSON.stringify(event.arguments).length;
    case "tool_call_response":
      return event.content.length;
    default:
      return 0;
  }
}

/** A call's arguments in short for an index line: the values, strings cut, on one line. */
export function shortCallArguments(args: Readonly<Record<string, unknown>>): string {
  const values = Object.values(args).map((value) => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const line = (text ?? "").replace(/\s+/g, " ").trim();
    return line.length > 48 ? `${line.slice(0, 47)}…` : line;
  });
  const joined = values.filter((value) => value !== "").join(" ");
  return joined.length > 80 ? `${joined.slice(0, 79)}…` : joined;
}

// ---------------------------------------------------------------------------------------------
// Exclusions

/** A pattern as written (`text`, or `/regex/flags`) as a global regular expression; undefined when invalid. */
export function compileRecallPattern(pattern: string): RegExp | undefined {
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  try {
    if (slashed !== null) {
      const flags = new Set([...slashed[2]!.replace(/[gy]/g, "")]);
      flags.add("g");
      return new RegExp(slashed[1]!, [...flags].join(""));
    }
    return new RegExp(escapeRegExp(pattern), "g");
  } catch {
    return undefined;
  }
}

/** Text as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The exclusions in force (those no later `recall_exclusion` retired), in stream order. */
export function activeRecallExclusions(events: readonly ConversationEvent[]): RecallExclusion[] {
  const retired = new Set<string>();
  for (const event of events)
    if (event.type === "recall_exclusion" && event.retires !== undefined)
      for (const id of event.retires) retired.add(id);
  return events.filter(
    (event): event is RecallExclusion =>
      event.type === "recall_exclusion" && event.retires === undefined && !retired.has(event.id),
  );
}

/** What the events and the configured patterns exclude. */
export function resolveExclusions(
  events: readonly ConversationEvent[],
  configured: readonly string[] = [],
): RecallExclusions {
  const active = activeRecallExclusions(events);
  if (active.length === 0 && configured.length === 0) return NO_EXCLUSIONS;
  const turns = new Set<number>();
  const calls = new Set<string>();
  const patterns: RegExp[] = [];
  for (const exclusion of active) {
    if (exclusion.pattern !== undefined) {
      const compiled = compileRecallPattern(exclusion.pattern);
      if (compiled !== undefined) patterns.push(compiled);
    } else if (exclusion.turn !== undefined) {
      if (exclusion.call === undefined) turns.add(exclusion.turn);
      else calls.add(`${exclusion.turn}.${exclusion.call}`);
    }
  }
  for (const pattern of configured) {
    const compiled = compileRecallPattern(pattern);
    if (compiled !== undefined) patterns.push(compiled);
  }
  return { turns, calls, patterns };
}

/** Text with every excluded pattern's matches replaced. */
function redact(text: string, exclusions: RecallExclusions): string {
  let result = text;
  for (const pattern of exclusions.patterns) {
    pattern.lastIndex = 0;
    result = result.replace(pattern, (match) => (match === "" ? "" : NOT_RECALLABLE));
  }
  return result;
}

/** What an exclusion keeps out, in words: `turn 3`, `turn 3, call 1`, `every match of /sk-.+/`. */
export function describeRecallExclusion(event: RecallExclusion): string {
  if (event.pattern !== undefined) return `every match of ${event.pattern}`;
  if (event.turn === undefined) return "nothing";
  return event.call === undefined ? `turn ${event.turn + 1}` : `turn ${event.turn + 1}, call ${event.call}`;
}

// ---------------------------------------------------------------------------------------------
// Analysis

/** Works out what the view hides of `events`; see the module comment. */
export function analyzeRecall(
  events: readonly ConversationEvent[],
  options: RecallOptions = {},
): RecallAnalysis {
  const view = options.view ?? projectConversation(events);
  const layout = layoutCycles(events);
  const turnOf = layout.turnIndices;
  const turnCount = countTurns(events);
  const shownObjects = new Set<ConversationEvent>(view.events);
  const viewIds = new Set<string>();
  for (const event of view.events) if (event.type !== "unknown") viewIds.add(event.id);
  const status = new Uint8Array(events.length);
  const calls: TurnCall[][] = Array.from({ length: turnCount }, () => []);
  const turnPositions: number[][] = Array.from({ length: turnCount }, () => []);
  const callNumber = new Int32Array(events.length);
  const openCalls = new Map<string, { turn: number; index: number }>();
  for (let position = 0; position < events.length; position++) {
    const event = events[position]!;
    if (!isTurnEvent(event)) continue;
    const turn = turnOf[position]!;
    turnPositions[turn]!.push(position);
    if (event.type === "tool_call_request") {
      const list = calls[turn]!;
      list.push({ request: position });
      callNumber[position] = list.length;
      openCalls.set(event.call_id, { turn, index: list.length - 1 });
    } else if (event.type === "tool_call_response") {
      const open = openCalls.get(event.call_id);
      if (open !== undefined && open.turn === turn && calls[turn]![open.index]!.response === undefined) {
        calls[turn]![open.index] = { ...calls[turn]![open.index]!, response: position };
        callNumber[position] = open.index + 1;
      }
    }
    if (event.type === "turn_start" || shownObjects.has(event) || view.pinned.has(event.id)) continue;
    if (contentLength(event) === 0) continue;
    status[position] = viewIds.has(event.id) ? ALTERED : HIDDEN;
  }
  const exclusions = resolveExclusions(events, options.excludePatterns);
  const summarized = new Uint8Array(events.length);
  const items: RecallItem[] = [];
  const excludedTurn = (turn: number) => exclusions.turns.has(turn);

  // Summaries: one item per run the view shows a summary for.
  const summaryItem = (
    fromTurn: number,
    toTurn: number,
    reference: string,
    inside: (p: number) => boolean,
  ) => {
    let characters = 0;
    let callCount = 0;
    let last = -1;
    for (let turn = fromTurn; turn <= toTurn; turn++) {
      for (const position of turnPositions[turn] ?? []) {
        if (status[position] === SHOWN || !inside(position)) continue;
        summarized[position] = 1;
        if (excludedTurn(turn)) continue;
        const event = events[position] as TurnEvent;
        if (event.type === "tool_call_request") {
          if (exclusions.calls.has(`${turn}.${callNumber[position]}`)) continue;
          callCount += 1;
        }
        if (
          (event.type === "tool_call_request" || event.type === "tool_call_response") &&
          exclusions.calls.has(`${turn}.${callNumber[position]}`)
        )
          continue;
        characters += contentLength(event);
        last = Math.max(last, position);
      }
    }
    if (last < 0) return;
    const parts = [
      ...(callCount === 0 ? [] : [`${callCount} ${callCount === 1 ? "call" : "calls"}`]),
      describeCharacters(characters),
    ];
    items.push({
      kind: "summary",
      reference,
      description: `summarized (${parts.join(", ")})`,
      fromTurn,
      toTurn,
      lastPosition: last,
    });
  };
  for (const turn of view.turns) {
    if (turn.origin.kind === "summary") {
      const { from, to } = turn.origin;
      summaryItem(from, to, turnReference(from + 1, to + 1), () => true);
    }
    for (const inner of turn.cycleSummaries ?? []) {
      const fromCycle = inner.from.cycle === HEAD ? 0 : inner.from.cycle;
      const reference =
        inner.from.turn === inner.to.turn
          ? fromCycle === inner.to.cycle
            ? `turn ${inner.from.turn + 1}, cycle ${fromCycle + 1}`
            : `turn ${inner.from.turn + 1}, cycles ${fromCycle + 1}..${inner.to.cycle + 1}`
          : turnReference(inner.from.turn + 1, inner.to.turn + 1);
      const within = (position: number): boolean => {
        const at = { turn: turnOf[position]!, cycle: layout.cycles[position]! };
        const afterStart =
          at.turn > inner.from.turn || (at.turn === inner.from.turn && at.cycle >= inner.from.cycle);
        const beforeEnd =
          at.turn < inner.to.turn ||
          (at.turn === inner.to.turn && (inner.to.cycle === TURN_END || at.cycle <= inner.to.cycle));
        return afterStart && beforeEnd;
      };
      summaryItem(inner.from.turn, inner.to.turn, reference, within);
    }
  }

  // Calls and reasoning outside summaries.
  const reasoningRuns: { from: number; to: number; characters: number; last: number }[] = [];
  for (let turn = 0; turn < turnCount; turn++) {
    if (excludedTurn(turn)) continue;
    let reasoning = 0;
    let lastReasoning = -1;
    for (const position of turnPositions[turn]!) {
      const event = events[position] as TurnEvent;
      if (status[position] === SHOWN || summarized[position] === 1) continue;
      if (event.type === "chat_response" && event.reasoning !== undefined) {
        reasoning += event.reasoning.length;
        lastReasoning = position;
      }
    }
    for (const [index, call] of calls[turn]!.entries()) {
      const number = index + 1;
      if (exclusions.calls.has(`${turn}.${number}`)) continue;
      const request = events[call.request] as ToolCallRequest;
      const response = call.response === undefined ? undefined : (events[call.response] as ToolCallResponse);
      const requestHidden = status[call.request] !== SHOWN && summarized[call.request] === 0;
      const responseHidden =
        call.response !== undefined && status[call.response] !== SHOWN && summarized[call.response] === 0;
      if (!requestHidden && !responseHidden) continue;
      const omitted =
        status[call.request] === HIDDEN && (call.response === undefined || status[call.response] === HIDDEN);
      const characters =
        (requestHidden ? contentLength(request) : 0) +
        (responseHidden && response ? response.content.length : 0);
      const what = omitted ? "omitted, " : !responseHidden ? "arguments, " : "";
      const args = redact(shortCallArguments(request.arguments), exclusions);
      const error = response?.is_error === true ? "error, " : "";
      items.push({
        kind: "call",
        reference: `turn ${turn + 1}, call ${number}`,
        description: `${request.name}${args === "" ? "" : ` ${args}`} (${what}${error}${describeCharacters(characters)})`,
        fromTurn: turn,
        toTurn: turn,
        lastPosition: Math.max(requestHidden ? call.request : -1, responseHidden ? call.response! : -1),
      });
    }
    if (lastReasoning >= 0) {
      const previous = reasoningRuns[reasoningRuns.length - 1];
      if (previous !== undefined && previous.to === turn - 1) {
        previous.to = turn;
        previous.characters += reasoning;
        previous.last = lastReasoning;
      } else reasoningRuns.push({ from: turn, to: turn, characters: reasoning, last: lastReasoning });
    }
  }
  for (const run of reasoningRuns) {
    items.push({
      kind: "reasoning",
      reference: turnReference(run.from + 1, run.to + 1),
      description: `reasoning (${describeCharacters(run.characters)})`,
      fromTurn: run.from,
      toTurn: run.to,
      lastPosition: run.last,
    });
  }
  items.sort((left, right) => left.fromTurn - right.fromTurn || left.lastPosition - right.lastPosition);
  return {
    events,
    view,
    turnCount,
    turnOf,
    cycleOf: layout.cycles,
    status,
    summarized,
    calls,
    turnPositions,
    callNumber,
    items,
    exclusions,
    ...(options.source === undefined ? {} : { source: options.source }),
    maxIndexLines: Math.max(2, options.maxIndexLines ?? DEFAULT_RECALL_INDEX_LINES),
  };
}

// ---------------------------------------------------------------------------------------------
// The index

/** A reference as the analysis's source writes it. */
function withSource(analysis: Pick<RecallAnalysis, "source">, reference: string): string {
  return analysis.source === undefined ? reference : `${analysis.source} ${reference}`;
}

/**
 * The index's lines: one per item, or, past `maxIndexLines`, the oldest items folded into one
 * line over their turns (`turns 1..40: 180 more hidden items …`), whose reference reads them all.
 */
export function recallIndexLines(analysis: RecallAnalysis): RecallIndexLine[] {
  const { items, maxIndexLines } = analysis;
  let shown: readonly RecallItem[] = items;
  if (items.length > maxIndexLines) {
    const folded = items.slice(0, items.length - (maxIndexLines - 1));
    const from = Math.min(...folded.map((item) => item.fromTurn));
    const to = Math.max(...folded.map((item) => item.toTurn));
    shown = [
      {
        kind: "folded",
        reference: turnReference(from + 1, to + 1),
        description: `${folded.length} older hidden items (search them with a query, or read these turns)`,
        fromTurn: from,
        toTurn: to,
        lastPosition: Math.max(...folded.map((item) => item.lastPosition)),
      },
      ...items.slice(items.length - (maxIndexLines - 1)),
    ];
  }
  return shown.map((item) => ({
    reference: withSource(analysis, item.reference),
    description: item.description,
  }));
}

/** The index as one text block (heading and lines), or undefined when nothing is hidden. */
export function recallIndexText(analysis: RecallAnalysis): string | undefined {
  if (analysis.items.length === 0) return undefined;
  const lines = recallIndexLines(analysis).map((line) => `${line.reference}: ${line.description}`);
  return [RECALL_INDEX_HEADING, ...lines].join("\n");
}

/** Where a request carries the index: its text, and the projected event it comes before. */
export interface RecallIndexPlacement {
  readonly text: string;
  readonly lines: readonly RecallIndexLine[];
  /**
   * The id of the first user-side event of the view after the hidden range (a user message or a
   * tool result): the index opens the user message that holds it. Absent when nothing follows the
   * hidden range: the index is a user message of its own at the end.
   */
  readonly beforeEventId?: string;
}

/**
 * The index and where it stands in a request: in the user message that follows the end of the
 * hidden range (the view's first user message or tool result stored after the last hidden event;
 * the summaries the view shows for hidden turns are part of the range). Undefined when nothing is
 * hidden.
 */
export function placeRecallIndex(analysis: RecallAnalysis): RecallIndexPlacement | undefined {
  const text = recallIndexText(analysis);
  if (text === undefined) return undefined;
  const lastHidden = Math.max(...analysis.items.map((item) => item.lastPosition));
  const lines = recallIndexLines(analysis);
  for (let position = lastHidden + 1; position < analysis.events.length; position++) {
    const event = analysis.events[position]!;
    if (event.type !== "chat_request" && event.type !== "tool_call_response") continue;
    if (event.type === "chat_request" && event.content === "") continue;
    if (analysis.status[position] === HIDDEN) continue;
    return { text, lines, beforeEventId: event.id };
  }
  return { text, lines };
}

// ---------------------------------------------------------------------------------------------
// References

/** What a reference names (0-based turns; calls and cycles 1-based as written). */
export type RecallTarget =
  | { readonly kind: "turns"; readonly from: number; readonly to: number }
  | { readonly kind: "call"; readonly turn: number; readonly call: number }
  | { readonly kind: "cycles"; readonly turn: number; readonly from: number; readonly to: number };

/** A parsed reference: its target and the source it names (`cxc 01k3…`), if any. */
export type ParsedReference =
  | { readonly ok: true; readonly target: RecallTarget; readonly source?: string }
  | { readonly ok: false; readonly error: string };

const REFERENCE_EXAMPLE = 'use one from the recall index, e.g. "turn 2, call 1" or "turns 1..5"';

/**
 * Reads a reference as the index writes it, forgiving case, spacing and a line copied whole
 * (`turn 2, call 1: read_file …`), `-` or `to` for `..`, and a leading `cxc <id>` source.
 */
export function parseRecallReference(text: string): ParsedReference {
  let rest = text.trim().replace(/^["'`]|["'`]$/g, "");
  let source: string | undefined;
  const sourced = /^(cxc\s+\S+)\s+(.*)$/is.exec(rest);
  if (sourced !== null) {
    source = sourced[1]!.replace(/\s+/g, " ");
    rest = sourced[2]!;
  }
  const colon = rest.indexOf(":");
  if (colon >= 0) rest = rest.slice(0, colon);
  const range = String.raw`(\d+)(?:\s*(?:\.\.\.?|-|–|to)\s*(\d+))?`;
  const match = new RegExp(
    String.raw`^turns?\s+${range}(?:\s*,?\s*(calls?|cycles?)\s+${range})?\s*\.?$`,
    "i",
  ).exec(rest.trim());
  if (match === null)
    return { ok: false, error: `"${text.trim().slice(0, 80)}" is not a reference: ${REFERENCE_EXAMPLE}` };
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  const zero = (value: number) => value < 1;
  if (zero(first) || zero(last) || last < first)
    return { ok: false, error: `"${text.trim().slice(0, 80)}": turns are numbered from 1, first to last` };
  const sourcePart = source === undefined ? {} : { source };
  if (match[3] === undefined)
    return { ok: true, target: { kind: "turns", from: first - 1, to: last - 1 }, ...sourcePart };
  if (last !== first)
    return { ok: false, error: `"${text.trim().slice(0, 80)}": calls and cycles are read within one turn` };
  const innerFirst = Number(match[4]);
  const innerLast = match[5] === undefined ? innerFirst : Number(match[5]);
  if (zero(innerFirst) || zero(innerLast) || innerLast < innerFirst)
    return {
      ok: false,
      error: `"${text.trim().slice(0, 80)}": calls and cycles are numbered from 1, first to last`,
    };
  if (match[3].toLowerCase().startsWith("call")) {
    if (innerLast !== innerFirst)
      return {
        ok: false,
        error: `"${text.trim().slice(0, 80)}": read one call at a time ("turn ${first}, call ${innerFirst}")`,
      };
    return { ok: true, target: { kind: "call", turn: first - 1, call: innerFirst }, ...sourcePart };
  }
  return {
    ok: true,
    target: { kind: "cycles", turn: first - 1, from: innerFirst - 1, to: innerLast - 1 },
    ...sourcePart,
  };
}

/** The reference of a target, as the index writes it (without a source). */
export function formatRecallTarget(target: RecallTarget): string {
  switch (target.kind) {
    case "turns":
      return turnReference(target.from + 1, target.to + 1);
    case "call":
      return `turn ${target.turn + 1}, call ${target.call}`;
    case "cycles":
      return target.from === target.to
        ? `turn ${target.turn + 1}, cycle ${target.from + 1}`
        : `turn ${target.turn + 1}, cycles ${target.from + 1}..${target.to + 1}`;
  }
}

/** The outcome of reading or searching: a page of text, or an error for the model. */
export type RecallResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

/** The positions a target covers, in stream order. */
function targetPositions(analysis: RecallAnalysis, target: RecallTarget): number[] {
  if (target.kind === "turns") {
    const positions: number[] = [];
    for (let turn = target.from; turn <= target.to; turn++)
      positions.push(...(analysis.turnPositions[turn] ?? []));
    return positions;
  }
  if (target.kind === "call") {
    const call = analysis.calls[target.turn]![target.call - 1]!;
    return call.response === undefined ? [call.request] : [call.request, call.response];
  }
  return (analysis.turnPositions[target.turn] ?? []).filter((position) => {
    const cycle = analysis.cycleOf[position]!;
    return cycle >= target.from && cycle <= target.to;
  });
}

/** Why a target cannot be read, or undefined when it can. */
function refuseTarget(analysis: RecallAnalysis, target: RecallTarget): string | undefined {
  const reference = withSource(analysis, formatRecallTarget(target));
  const count = analysis.turnCount;
  const lastTurn = target.kind === "turns" ? target.to : target.turn;
  if (lastTurn >= count)
    return `${reference} is not in this conversation: it has ${count} ${count === 1 ? "turn" : "turns"}; use a reference from the recall index`;
  if (target.kind === "call") {
    const calls = analysis.calls[target.turn]!.length;
    if (target.call > calls)
      return `${reference} does not exist: turn ${target.turn + 1} made ${calls} tool ${calls === 1 ? "call" : "calls"}`;
    if (
      analysis.exclusions.turns.has(target.turn) ||
      analysis.exclusions.calls.has(`${target.turn}.${target.call}`)
    )
      return `${reference} is not recallable: the user keeps it out of recall; do not ask for it again`;
  }
  if (target.kind === "cycles") {
    const cycles = new Set<number>();
    for (const position of analysis.turnPositions[target.turn] ?? []) cycles.add(analysis.cycleOf[position]!);
    const most = Math.max(-1, ...cycles) + 1;
    if (target.to >= most)
      return `${reference} does not exist: turn ${target.turn + 1} has ${most} ${most === 1 ? "cycle" : "cycles"}`;
  }
  const positions = targetPositions(analysis, target);
  const excludedTurns = target.kind === "turns" ? range(target.from, target.to) : [target.turn];
  if (excludedTurns.every((turn) => analysis.exclusions.turns.has(turn)))
    return `${reference} is not recallable: the user keeps it out of recall; do not ask for it again`;
  if (!positions.some((position) => analysis.status[position] !== SHOWN))
    return `${reference} is not hidden: it is in your context as it was sent. Recall reads only what a compaction hid; see the recall index`;
  return undefined;
}

function range(from: number, to: number): number[] {
  const values: number[] = [];
  for (let value = from; value <= to; value++) values.push(value);
  return values;
}

/** The text of one event as the model was sent it, with what the user excluded taken out. */
function eventText(analysis: RecallAnalysis, position: number): string | undefined {
  const event = analysis.events[position] as TurnEvent;
  const turn = analysis.turnOf[position]!;
  const number = analysis.callNumber[position]!;
  const excluded =
    analysis.exclusions.turns.has(turn) ||
    ((event.type === "tool_call_request" || event.type === "tool_call_response") &&
      analysis.exclusions.calls.has(`${turn}.${number}`));
  const text = rawText(event);
  if (text === undefined) return undefined;
  return excluded ? NOT_RECALLABLE : redact(text, analysis.exclusions);
}

function rawText(event: TurnEvent): string | undefined {
  switch (event.type) {
    case "chat_request":
      return event.content;
    case "chat_response":
      return event.message ?? event.reasoning ?? JSON.stringify(event.data);
    case "tool_call_request":
      return JSON.stringify(event.arguments);
    case "tool_call_response":
      return event.content;
    default:
      return undefined;
  }
}

/** The label of an event's block in a rendering. */
function eventLabel(analysis: RecallAnalysis, position: number): string | undefined {
  const event = analysis.events[position] as TurnEvent;
  const number = analysis.callNumber[position]!;
  switch (event.type) {
    case "chat_request":
      return event.author === undefined ? "user:" : `user (${event.author}):`;
    case "chat_response":
      if (event.message !== undefined) return "assistant:";
      if (event.reasoning !== undefined) return "assistant's reasoning:";
      return "assistant's structured answer:";
    case "tool_call_request":
      return number > 0 ? `call ${number}: ${event.name}, arguments:` : `call: ${event.name}, arguments:`;
    case "tool_call_response":
      return `${number > 0 ? `result of call ${number}` : "result"}${event.is_error ? " (error)" : ""}:`;
    default:
      return undefined;
  }
}

/** The raw content of a target, every text as stored (see the module comment). */
function renderTarget(analysis: RecallAnalysis, target: RecallTarget): string {
  const reference = withSource(analysis, formatRecallTarget(target));
  const blocks: string[] = [];
  if (target.kind === "call") {
    const call = analysis.calls[target.turn]![target.call - 1]!;
    const request = analysis.events[call.request] as ToolCallRequest;
    blocks.push(`${reference}: ${request.name}`);
    blocks.push(`arguments:\n${eventText(analysis, call.request) ?? "{}"}`);
    if (call.response === undefined) blocks.push("result: (none: the call was never answered)");
    else {
      const response = analysis.events[call.response] as ToolCallResponse;
      blocks.push(
        `result${response.is_error ? " (error)" : ""}:\n${eventText(analysis, call.response) ?? ""}`,
      );
    }
    return blocks.join("\n");
  }
  let currentTurn = -1;
  for (const position of targetPositions(analysis, target)) {
    const turn = analysis.turnOf[position]!;
    if (turn !== currentTurn) {
      currentTurn = turn;
      blocks.push(`## turn ${turn + 1}`);
    }
    const label = eventLabel(analysis, position);
    const text = eventText(analysis, position);
    if (label === undefined || text === undefined) continue;
    blocks.push(`${label}\n${text}`);
  }
  return `${reference}\n${blocks.join("\n\n")}`;
}

/** `text` cut at `end` without splitting a surrogate pair. */
function safeEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** Room kept on a page for its heading and its last line. */
const PAGE_FRAME = 200;

/**
 * Page `page` (1-based) of `text` under `budget` characters: the pages' bodies, put together, are
 * `text` exactly; every page but the last ends with the line saying how to go on.
 */
export function pageOf(text: string, page: number, budget: number, what: string): RecallResult {
  const body = Math.max(1, budget - PAGE_FRAME);
  const starts: number[] = [0];
  while (starts[starts.length - 1]! + body < text.length) {
    const start = starts[starts.length - 1]!;
    starts.push(safeEnd(text, start + body));
  }
  const pages = starts.length;
  if (page > pages)
    return {
      ok: false,
      error: `${what} has ${pages} ${pages === 1 ? "page" : "pages"}; there is no page ${page}`,
    };
  const start = starts[page - 1]!;
  const end = page < pages ? starts[page]! : text.length;
  const heading = pages === 1 ? "" : `[${what}, page ${page} of ${pages}]\n`;
  const remaining = text.length - end;
  const footer = page < pages ? `\n[${remaining} more characters: call again with page ${page + 1}]` : "";
  return { ok: true, text: `${heading}${text.slice(start, end)}${footer}` };
}

/** Reads a reference (see the module comment); `page` is 1-based. */
export function readRecallReference(
  analysis: RecallAnalysis,
  reference: string,
  options: { readonly page?: number; readonly budget?: number } = {},
): RecallResult {
  const parsed = parseRecallReference(reference);
  if (!parsed.ok) return parsed;
  if (parsed.source !== analysis.source) {
    const own = analysis.source === undefined ? "no source prefix" : `"${analysis.source} …"`;
    return {
      ok: false,
      error: `${reference.trim().slice(0, 80)} names ${parsed.source === undefined ? "no source" : `"${parsed.source}"`}; references here take ${own}, as the recall index writes them`,
    };
  }
  const refused = refuseTarget(analysis, parsed.target);
  if (refused !== undefined) return { ok: false, error: refused };
  const what = withSource(analysis, formatRecallTarget(parsed.target));
  return pageOf(renderTarget(analysis, parsed.target), options.page ?? 1, budgetOf(options.budget), what);
}

/** A budget, never below the least. */
function budgetOf(budget: number | undefined): number {
  return Math.max(MINIMUM_RECALL_PAGE_CHARACTERS, budget ?? DEFAULT_RECALL_PAGE_CHARACTERS);
}

// ---------------------------------------------------------------------------------------------
// Search

/** One searchable piece of hidden content. */
export interface RecallUnit {
  readonly reference: string;
  readonly text: string;
  readonly position: number;
}

/**
 * The hidden content as searchable pieces, newest first: each hidden or changed event (outside
 * what the user excluded) with the reference that reads it: `turn 3, call 2` for a call's
 * arguments or result, `turn 3` for text and reasoning.
 */
export function recallUnits(analysis: RecallAnalysis): RecallUnit[] {
  const units: RecallUnit[] = [];
  for (let position = analysis.events.length - 1; position >= 0; position--) {
    if (analysis.status[position] === SHOWN) continue;
    const event = analysis.events[position] as TurnEvent;
    const turn = analysis.turnOf[position]!;
    if (analysis.exclusions.turns.has(turn)) continue;
    const number = analysis.callNumber[position]!;
    const isCall = event.type === "tool_call_request" || event.type === "tool_call_response";
    if (isCall && analysis.exclusions.calls.has(`${turn}.${number}`)) continue;
    const text = eventText(analysis, position);
    if (text === undefined) continue;
    const searchable = event.type === "tool_call_request" ? `${event.name} ${text}` : text;
    const reference = isCall && number > 0 ? `turn ${turn + 1}, call ${number}` : `turn ${turn + 1}`;
    units.push({ reference: withSource(analysis, reference), text: searchable, position });
  }
  return units;
}

/** One match: the unit (index into the units) and where in its text. */
export interface RecallMatch {
  readonly unit: number;
  readonly start: number;
  readonly end: number;
}

/** The most matches a search collects, and per piece of content. */
export const MAX_RECALL_MATCHES = 200;
export const MAX_MATCHES_PER_UNIT = 3;

/**
 * The matches of a global regular expression over the units' texts, newest first, at most
 * `MAX_MATCHES_PER_UNIT` per unit and `MAX_RECALL_MATCHES` in all; `total` counts every match up to
 * the limit of units searched. Runs the expression as given: the shell runs a model's pattern
 * under a time limit (src/tools/recall.ts runs this same loop in a worker).
 */
export function findRecallMatches(
  texts: readonly string[],
  pattern: RegExp,
): { matches: RecallMatch[]; total: number } {
  const matches: RecallMatch[] = [];
  let total = 0;
  for (let unit = 0; unit < texts.length; unit++) {
    const text = texts[unit]!;
    pattern.lastIndex = 0;
    let inUnit = 0;
    for (;;) {
      const found = pattern.exec(text);
      if (found === null) break;
      if (found[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      total += 1;
      if (inUnit < MAX_MATCHES_PER_UNIT && matches.length < MAX_RECALL_MATCHES)
        matches.push({ unit, start: found.index, end: found.index + found[0].length });
      inUnit += 1;
    }
  }
  return { matches, total };
}

/**
 * A query as a regular expression: `/pattern/flags` as written, else the text, case-insensitively,
 * white space matching any white space.
 */
export function queryPattern(query: string): { pattern: RegExp; isPattern: boolean } | { error: string } {
  const trimmed = query.trim();
  if (trimmed === "")
    return { error: "the query is empty: give a text or a /pattern/ to search the hidden content for" };
  // `/pattern/flags` with flags JavaScript knows; anything else (`/// a comment`, `a/b/c`) is text.
  const slashed = /^\/(.+)\/([dgimsuvy]*)$/s.exec(trimmed);
  if (slashed === null || new Set(slashed[2]!).size !== slashed[2]!.length)
    return { pattern: literalPattern(trimmed), isPattern: false };
  const flags = new Set([...slashed[2]!]);
  flags.delete("y");
  flags.add("g");
  try {
    return { pattern: new RegExp(slashed[1]!, [...flags].join("")), isPattern: true };
  } catch (error) {
    return { error: `${trimmed.slice(0, 80)} is not a valid pattern: ${(error as Error).message}` };
  }
}

/**
 * Text as a case-insensitive pattern in which each run of white space matches any run of white
 * space: a sentence the model quotes on one line still finds one wrapped over two.
 */
function literalPattern(text: string): RegExp {
  return new RegExp(
    text
      .split(/\s+/)
      .map((word) => escapeRegExp(word))
      .join("\\s+"),
    "giu",
  );
}

/** How much text a snippet shows on each side of its match. */
const SNIPPET_CONTEXT = 60;

function snippet(text: string, start: number, end: number): string {
  const from = Math.max(0, start - SNIPPET_CONTEXT);
  const to = Math.min(text.length, end + SNIPPET_CONTEXT);
  const body = text.slice(from, to).replace(/\s+/g, " ");
  return `${from > 0 ? "…" : ""}${body}${to < text.length ? "…" : ""}`;
}

/** The search result's text from its matches (see the module comment), paged under the budget. */
export function renderRecallSearch(
  units: readonly RecallUnit[],
  found: { readonly matches: readonly RecallMatch[]; readonly total: number },
  query: string,
  options: { readonly page?: number; readonly budget?: number } = {},
): RecallResult {
  const shownQuery = query.trim().slice(0, 80);
  if (found.matches.length === 0) {
    return {
      ok: true,
      text:
        units.length === 0
          ? "Nothing is hidden from this conversation: there is nothing to search."
          : `No hidden content matches ${shownQuery}. (Recall searches only what a compaction hid; what is in your context is not searched.)`,
    };
  }
  const lines = found.matches.map((match) => {
    const unit = units[match.unit]!;
    return `${unit.reference}: ${snippet(unit.text, match.start, match.end)}`;
  });
  const more = found.total - found.matches.length;
  const heading = `${found.total} ${found.total === 1 ? "match" : "matches"} of ${shownQuery} in hidden content, newest first${more > 0 ? ` (the first ${found.matches.length} shown; narrow the query for the rest)` : ""}. Read one whole with its reference:`;
  return pageOf(
    [heading, ...lines].join("\n"),
    options.page ?? 1,
    budgetOf(options.budget),
    `the search for ${shownQuery}`,
  );
}

/** Searches hidden content in process (a text query; the shell runs patterns in a worker). */
export function searchRecall(
  analysis: RecallAnalysis,
  query: string,
  options: { readonly page?: number; readonly budget?: number } = {},
): RecallResult {
  const compiled = queryPattern(query);
  if ("error" in compiled) return { ok: false, error: compiled.error };
  const units = recallUnits(analysis);
  const found = findRecallMatches(
    units.map((unit) => unit.text),
    compiled.pattern,
  );
  return renderRecallSearch(units, found, query, options);
}

// ---------------------------------------------------------------------------------------------
// Keeping things out (`cxc conversation forget`)

/** What to keep out: a turn (0-based), a call of it (1-based), or a pattern as written. */
export type RecallExclusionTarget =
  | { readonly turn: number; readonly call?: number }
  | { readonly pattern: string };

/** The exclusion to append, or why not (`already` when one in force says the same). */
export type PlannedExclusion =
  | { readonly ok: true; readonly event: RecallExclusion }
  | { readonly ok: false; readonly already?: RecallExclusion; readonly message: string };

/** Plans keeping `target` out of recall; the event carries `stamp`. */
export function planRecallExclusion(
  events: readonly ConversationEvent[],
  target: RecallExclusionTarget,
  stamp: { readonly id: string; readonly ts: string },
): PlannedExclusion {
  const active = activeRecallExclusions(events);
  if ("pattern" in target) {
    if (compileRecallPattern(target.pattern) === undefined)
      return { ok: false, message: `${target.pattern} is not a valid pattern (text, or /regex/flags)` };
    const already = active.find((exclusion) => exclusion.pattern === target.pattern);
    if (already !== undefined)
      return {
        ok: false,
        already,
        message: `${describeRecallExclusion(already)} is already kept out of recall`,
      };
    return { ok: true, event: { type: "recall_exclusion", ...stamp, pattern: target.pattern } };
  }
  const turnCount = countTurns(events);
  if (target.turn >= turnCount)
    return {
      ok: false,
      message: `turn ${target.turn + 1} is not in this conversation: it has ${turnCount} ${turnCount === 1 ? "turn" : "turns"}`,
    };
  if (target.call !== undefined) {
    const indices = layoutCycles(events).turnIndices;
    const calls = events.filter(
      (event, position) => event.type === "tool_call_request" && indices[position] === target.turn,
    ).length;
    if (target.call > calls)
      return {
        ok: false,
        message: `turn ${target.turn + 1} made ${calls} tool ${calls === 1 ? "call" : "calls"}: there is no call ${target.call}`,
      };
  }
  const already = active.find(
    (exclusion) =>
      exclusion.turn === target.turn && (exclusion.call === undefined || exclusion.call === target.call),
  );
  if (already !== undefined)
    return {
      ok: false,
      already,
      message: `${describeRecallExclusion(already)} is already kept out of recall`,
    };
  return {
    ok: true,
    event: {
      type: "recall_exclusion",
      ...stamp,
      turn: target.turn,
      ...(target.call === undefined ? {} : { call: target.call }),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The index an agent's own compaction leaves (the restore inside Claude Code and Codex)

/** The most call lines the restore's index lists under its summary line. */
export const AGENT_INDEX_CALLS = 12;

/**
 * The recall index of an agent's compaction that is about to hide every turn of `events`, or its
 * turns up to `to` (the restore after Claude Code or Codex compacts,
 * src/cli/hooks/hook-restore.ts; the summary cxc has pi's summarizer write): the line of the
 * turns the agent's summary stands for, then its largest calls (at most `maxCalls`, in turn
 * order), each with the reference the agent's `recall` reads once the summary is in the
 * transcript. Undefined when there is nothing to list.
 */
export function agentCompactionIndex(
  events: readonly ConversationEvent[],
  options: Omit<RecallOptions, "view"> & { readonly maxCalls?: number; readonly to?: number } = {},
): string | undefined {
  const to = Math.min(options.to ?? Number.POSITIVE_INFINITY, countTurns(events) - 1);
  if (to < 0) return undefined;
  const cover = buildCompactionEvent(
    { from: 0, to, supplied: { text: "(the agent's summary)", author: "assistant" } },
    { id: "recall-agent-compaction", ts: "1970-01-01T00:00:00.000Z", source: "auto" },
  );
  return indexWithLargestCalls(analyzeRecall([...events, cover], options), options.maxCalls);
}

/**
 * The index of an agent's compactions (the restore, pi's message after its compaction): its lines,
 * then the largest hidden calls (at most `maxCalls`, in turn order) with their own references, so
 * the model can read one call of a summarized turn without paging through the turn. Undefined when
 * nothing is hidden.
 */
export function indexWithLargestCalls(
  analysis: RecallAnalysis,
  maxCalls: number = AGENT_INDEX_CALLS,
): string | undefined {
  const { events } = analysis;
  const summaryLines = recallIndexLines(analysis);
  if (summaryLines.length === 0) return undefined;
  const listed = new Set(summaryLines.map((line) => line.reference));
  const calls: { turn: number; call: number; size: number; line: string }[] = [];
  for (let turn = 0; turn < analysis.turnCount; turn++) {
    if (analysis.exclusions.turns.has(turn)) continue;
    for (const [index, call] of analysis.calls[turn]!.entries()) {
      const number = index + 1;
      if (analysis.exclusions.calls.has(`${turn}.${number}`)) continue;
      const hidden =
        analysis.status[call.request] !== SHOWN ||
        (call.response !== undefined && analysis.status[call.response] !== SHOWN);
      const reference = withSource(analysis, `turn ${turn + 1}, call ${number}`);
      if (!hidden || listed.has(reference)) continue;
      const request = events[call.request] as ToolCallRequest;
      const response = call.response === undefined ? undefined : (events[call.response] as ToolCallResponse);
      const size = contentLength(request) + (response?.content.length ?? 0);
      const args = redact(shortCallArguments(request.arguments), analysis.exclusions);
      const error = response?.is_error === true ? "error, " : "";
      calls.push({
        turn,
        call: number,
        size,
        line: `${reference}: ${request.name}${args === "" ? "" : ` ${args}`} (${error}${describeCharacters(size)})`,
      });
    }
  }
  const largest = calls
    .sort((left, right) => right.size - left.size)
    .slice(0, maxCalls)
    .sort((left, right) => left.turn - right.turn || left.call - right.call);
  return [
    RECALL_INDEX_HEADING,
    ...summaryLines.map((line) => `${line.reference}: ${line.description}`),
    ...largest.map((entry) => entry.line),
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Sources an export names

/**
 * The cxc conversations whose references the recall index messages of `events` hold (an agent's
 * session exported from cxc: `cxc 01k3… turn 3, call 1`), in order, each once.
 */
export function indexSources(events: readonly ConversationEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "chat_request" || !event.content.startsWith(RECALL_INDEX_HEADING)) continue;
    for (const match of event.content.matchAll(/^cxc (\S+) turns? \d/gm)) ids.add(match[1]!);
  }
  return [...ids];
}
