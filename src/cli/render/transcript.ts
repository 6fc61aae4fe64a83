/**
 * Renders conversations as transcripts for `cxc conversation print`.
 *
 * The renderer works on a list of `TranscriptTurn`s (a header plus the events to show), so the raw
 * view (one entry per stored turn, built by `buildRawTranscript`) and a projected view (one entry
 * per projected turn, e.g. `turns 2..5 (summary)`) share it. Everything that came from outside cxc
 * (messages, reasoning, tool names, arguments and output) is sanitized; headers are chrome.
 */
import { type ConversationEvent, serializeEvent } from "../../core/conversation/events.js";
import { describePin, pinnedMessages } from "../../core/conversation/pins.js";
import { describeRecallExclusion } from "../../core/conversation/recall.js";
import { describeCompaction, formatCount } from "../../core/present/labels.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import { HEAD, layoutCycles } from "../../core/conversation/cycles.js";
import { assignTurnIndices, countTurns } from "../../core/conversation/turns.js";
import { formatTimestamp } from "./relative-time.js";
import type { ResolvedTurns } from "./turn-selection.js";

/** One block of a transcript. */
export interface TranscriptTurn {
  /** Chrome above the block, e.g. `turn 3` or `turns 2..5 (summary)`. Trusted text. */
  readonly header: string;
  /** The 1-based raw turn numbers the block covers (one for a raw turn). */
  readonly turnNumbers: readonly number[];
  /** Events in stream order, global entries (config, compactions) included where they fell. */
  readonly events: readonly ConversationEvent[];
  /**
   * Requests that carry a summary inside the turn (projected views), by event id: the tag shown
   * instead of `[user]`, e.g. `summary of cycles 1..6`. Trusted text.
   */
  readonly summaryTags?: ReadonlyMap<string, string>;
  /** The ids of the pinned messages of the block (`cxc conversation keep`), marked `, pinned`. */
  readonly pinned?: ReadonlySet<string>;
  /**
   * The first event of each cycle (model response) of a raw turn of several, by event id: its
   * position as `keep T.C` and `compact --from T.C` name it (`4.2`). Absent in projected views.
   */
  readonly cycleStarts?: ReadonlyMap<string, string>;
  /**
   * What a projected block stands for, for JSON: a summary of raw turns (with its compaction), or
   * a kept turn and the cycles summaries replaced inside it. Absent for a raw turn.
   */
  readonly origin?: TranscriptOrigin;
}

/** The raw positions behind a projected block (1-based turns and cycles). */
export type TranscriptOrigin =
  | { readonly kind: "summary"; readonly compactionId: string }
  | {
      readonly kind: "turn";
      readonly summarizedCycles: readonly {
        readonly fromTurn: number;
        readonly fromCycle: number;
        readonly toTurn: number;
        readonly toCycle: number;
        readonly compactionId: string;
      }[];
    };

/** The raw view of the selected turns: one block per stored turn, numbered from 1. */
export function buildRawTranscript(
  events: readonly ConversationEvent[],
  selection: ResolvedTurns,
): TranscriptTurn[] {
  const turnCount = countTurns(events);
  const indices = assignTurnIndices(events);
  const { cycles, cycleCounts } = layoutCycles(events, indices);
  const { ids: pinned } = pinnedMessages(events);
  // Cycle numbers where `keep T.C` and `--from T.C` need them: in turns of more than one cycle.
  const cycleStarts = new Map<string, string>();
  let previous = { turn: -1, cycle: HEAD };
  events.forEach((event, position) => {
    const turn = indices[position]!;
    const cycle = cycles[position]!;
    if (cycle === HEAD || !("id" in event) || (cycleCounts[turn] ?? 0) < 2) return;
    if (previous.turn !== turn || previous.cycle !== cycle)
      cycleStarts.set(event.id, `${turn + 1}.${cycle + 1}`);
    previous = { turn, cycle };
  });
  const byTurn: ConversationEvent[][] = Array.from({ length: turnCount }, () => []);
  events.forEach((event, position) => {
    byTurn[indices[position]!]?.push(event);
  });
  const turns: TranscriptTurn[] = [];
  for (let index = selection.start; index < selection.end && index < turnCount; index++) {
    const turnEvents = byTurn[index]!;
    const first = turnEvents.find((event) => event.type !== "unknown");
    const when = first && "ts" in first ? ` · ${formatTimestamp(first.ts)}` : "";
    turns.push({
      header: `turn ${index + 1}${when}`,
      turnNumbers: [index + 1],
      events: turnEvents,
      ...(pinned.size === 0 ? {} : { pinned }),
      ...(cycleStarts.size === 0 ? {} : { cycleStarts }),
    });
  }
  return turns;
}

/**
 * What `print --style` shows (jp's presets), plus cxc's default when no style is given:
 *
 * - `default`: everything, with long tool output cut to its first lines and long tool arguments
 *   and configuration entries to a short line (a note says how much was left out and that
 *   `--style full` shows it);
 * - `full`: everything, nothing cut;
 * - `brief`: user and assistant messages and a one-line header per tool call (no arguments, no
 *   results, no reasoning);
 * - `chat`: user and assistant messages only;
 * - `user`: the user's messages only.
 */
export type PrintStyle = "default" | "full" | "brief" | "chat" | "user";

export const PRINT_STYLES: readonly Exclude<PrintStyle, "default">[] = ["full", "chat", "user", "brief"];

/** How much of a tool's output the default style shows. */
export const TOOL_OUTPUT_LINES = 10;
const TOOL_OUTPUT_CHARACTERS = 2_000;
const TOOL_ARGUMENT_CHARACTERS = 200;

/** Colours for chrome (headers, labels, notes); content is never coloured. */
export interface TranscriptColors {
  readonly header: (text: string) => string;
  readonly label: (
    text: string,
    role: "user" | "assistant" | "reasoning" | "tool" | "error" | "other",
  ) => string;
  readonly note: (text: string) => string;
}

const PLAIN: TranscriptColors = { header: (text) => text, label: (text) => text, note: (text) => text };

/** ANSI colours for a terminal: bold headers, coloured role labels, dim notes and reasoning. */
export const ANSI_COLORS: TranscriptColors = {
  header: (text) => `\u001b[1m${text}\u001b[22m`,
  label: (text, role) => {
    const code = { user: "36", assistant: "32", reasoning: "2", tool: "33", error: "31", other: "35" }[role];
    return `\u001b[${code}m${text}\u001b[${role === "reasoning" ? "22" : "39"}m`;
  },
  note: (text) => `\u001b[2m${text}\u001b[22m`,
};

export interface RenderOptions {
  readonly style?: PrintStyle;
  readonly colors?: TranscriptColors;
}

/** The whole transcript as text, one block per turn, separated by blank lines. */
export function renderTranscriptText(turns: readonly TranscriptTurn[], options: RenderOptions = {}): string {
  const style = options.style ?? "default";
  const colors = options.colors ?? PLAIN;
  const toolNames = new Map<string, string>();
  for (const turn of turns)
    for (const event of turn.events)
      if (event.type === "tool_call_request") toolNames.set(event.call_id, event.name);
  const blocks = turns.map((turn) => {
    const lines = [colors.header(`── ${turn.header} ──`)];
    for (const event of turn.events) {
      const cycle = turn.cycleStarts?.get("id" in event ? event.id : "");
      if (cycle !== undefined && SHOWS.cycles.has(style)) lines.push(colors.note(`· cycle ${cycle}`));
      const tag = turn.summaryTags?.get("id" in event ? event.id : "");
      if (tag !== undefined && event.type === "chat_request") {
        lines.push(colors.label(`[${tag}]`, "other"), clean(event.content.replace(/^\[[^\]\n]*\]\n\n/, "")));
      } else {
        const pinned = turn.pinned !== undefined && "id" in event && turn.pinned.has(event.id);
        lines.push(...renderEventLines(event, { toolNames, style, colors, pinned }));
      }
    }
    return lines.join("\n");
  });
  return blocks.length === 0 ? "" : `${blocks.join("\n\n")}\n`;
}

/**
 * The blocks as JSON: each header as display text and as fields (`kind` `turn` or `summary`,
 * `from_turn`, `to_turn`, a summary's `compaction_id`, the cycles summaries replaced inside a
 * turn), its raw turn numbers, its events, and the ids of its pinned messages when it has some.
 */
export function transcriptToJson(turns: readonly TranscriptTurn[]): Record<string, unknown>[] {
  return turns.map((turn) => {
    const origin = turn.origin;
    const pinned = turn.events.flatMap((event) =>
      "id" in event && turn.pinned?.has(event.id) === true ? [event.id] : [],
    );
    return {
      header: turn.header,
      kind: origin?.kind ?? "turn",
      from_turn: Math.min(...turn.turnNumbers),
      to_turn: Math.max(...turn.turnNumbers),
      ...(origin?.kind === "summary" ? { compaction_id: origin.compactionId } : {}),
      summarized_cycles:
        origin?.kind === "turn"
          ? origin.summarizedCycles.map((cycles) => ({
              from_turn: cycles.fromTurn,
              from_cycle: cycles.fromCycle,
              to_turn: cycles.toTurn,
              to_cycle: cycles.toCycle,
              compaction_id: cycles.compactionId,
            }))
          : [],
      turns: [...turn.turnNumbers],
      events: turn.events.map(serializeEvent),
      ...(pinned.length === 0 ? {} : { pinned }),
    };
  });
}

function clean(text: string): string {
  return sanitizeTerminalText(text).replace(/\n+$/, "");
}

interface EventContext {
  readonly toolNames: ReadonlyMap<string, string>;
  readonly style: PrintStyle;
  readonly colors: TranscriptColors;
  /** The event is a pinned message: its label says so (`[user, pinned]`). */
  readonly pinned?: boolean;
}

/** The styles that show each kind of thing. */
const SHOWS = {
  assistant: new Set<PrintStyle>(["default", "full", "brief", "chat"]),
  reasoning: new Set<PrintStyle>(["default", "full"]),
  toolHeaders: new Set<PrintStyle>(["default", "full", "brief"]),
  toolDetails: new Set<PrintStyle>(["default", "full"]),
  compactions: new Set<PrintStyle>(["default", "full", "brief"]),
  cycles: new Set<PrintStyle>(["default", "full", "brief"]),
  other: new Set<PrintStyle>(["default", "full"]),
};

function renderEventLines(event: ConversationEvent, context: EventContext): string[] {
  const { style, colors } = context;
  const kept = context.pinned === true ? ", pinned" : "";
  switch (event.type) {
    case "turn_start":
      return [];
    case "chat_request":
      return [
        colors.label(`[user${event.author ? `: ${clean(event.author)}` : ""}${kept}]`, "user"),
        clean(event.content),
      ];
    case "chat_response": {
      const suffix = `${event.interrupted ? ", interrupted" : ""}${kept}`;
      if (event.message !== undefined) {
        if (!SHOWS.assistant.has(style)) return [];
        return [colors.label(`[assistant${suffix}]`, "assistant"), clean(event.message)];
      }
      if (event.reasoning !== undefined) {
        if (!SHOWS.reasoning.has(style)) return [];
        return [colors.label(`[reasoning${suffix}]`, "reasoning"), clean(event.reasoning)];
      }
      if (!SHOWS.assistant.has(style)) return [];
      return [colors.label(`[structured${suffix}]`, "assistant"), clean(JSON.stringify(event.data, null, 2))];
    }
    case "tool_call_request": {
      if (!SHOWS.toolHeaders.has(style)) return [];
      const label = colors.label(`[tool call${kept}]`, "tool");
      if (!SHOWS.toolDetails.has(style)) return [`${label} ${clean(event.name)}`];
      return [`${label} ${clean(event.name)} ${cutLine(clean(JSON.stringify(event.arguments)), context)}`];
    }
    case "tool_call_response": {
      if (!SHOWS.toolDetails.has(style)) return [];
      const name = context.toolNames.get(event.call_id) ?? event.call_id;
      const status = event.is_error ? "error" : "ok";
      const header = `${colors.label(`[tool result${kept}]`, event.is_error ? "error" : "tool")} ${clean(name)} ${status}`;
      const output = clean(event.content);
      return style === "full" ? [header, output] : [header, ...cutToolOutput(output, colors)];
    }
    case "inquiry_request":
      return otherLine("[inquiry]", event.question, context);
    case "inquiry_response":
      return otherLine("[inquiry answer]", event.answer, context);
    case "config_delta":
      return otherLine("[config]", event.delta, context);
    case "compaction": {
      if (!SHOWS.compactions.has(style)) return [];
      const facts: string[] = [event.source];
      if (event.deferred_until_turn !== undefined)
        facts.push(`deferred until turn ${event.deferred_until_turn + 1}`);
      const note = event.note ? ` — ${clean(event.note)}` : "";
      return [
        `${colors.label("[compaction]", "other")} ${describeCompaction(event)} [${facts.join(", ")}]${note}`,
      ];
    }
    case "compaction_reset":
      if (!SHOWS.compactions.has(style)) return [];
      return [
        `${colors.label("[compaction reset]", "other")} retires ${formatCount(event.retires.length, "entry", "entries")}`,
      ];
    case "pin":
      if (!SHOWS.compactions.has(style)) return [];
      return [`${colors.label("[pin]", "other")} keeps ${describePin(event)} verbatim [${event.source}]`];
    case "pin_reset":
      if (!SHOWS.compactions.has(style)) return [];
      return [`${colors.label("[pin reset]", "other")} retires ${formatCount(event.retires.length, "pin")}`];
    case "usage":
      // Bookkeeping of an earlier answer (its request's usage, learnt later): nothing to read.
      return [];
    case "recall_exclusion":
      if (!SHOWS.compactions.has(style)) return [];
      return event.retires === undefined
        ? [`${colors.label("[not recallable]", "other")} ${clean(describeRecallExclusion(event))}`]
        : [
            `${colors.label("[recallable again]", "other")} retires ${formatCount(event.retires.length, "exclusion")}`,
          ];
    case "unknown":
      if (!SHOWS.other.has(style)) return [];
      return [`[${clean(String(event.raw.type))}] (an event kind this cxc does not know)`];
  }
}

/** A labelled line of JSON (inquiries, configuration), in the styles that show them. */
function otherLine(label: string, value: unknown, context: EventContext): string[] {
  if (!SHOWS.other.has(context.style)) return [];
  return [`${context.colors.label(label, "other")} ${cutLine(clean(JSON.stringify(value)), context)}`];
}

/** One line of JSON, cut to TOOL_ARGUMENT_CHARACTERS characters except in the full style. */
function cutLine(text: string, context: EventContext): string {
  if (context.style === "full" || text.length <= TOOL_ARGUMENT_CHARACTERS) return text;
  const hidden = text.length - TOOL_ARGUMENT_CHARACTERS;
  const note = `(${formatCount(hidden, "more character")}; --style full shows them)`;
  return `${text.slice(0, TOOL_ARGUMENT_CHARACTERS)}… ${context.colors.note(note)}`;
}

/**
 * The first lines of a tool's output (at most TOOL_OUTPUT_LINES lines and about
 * TOOL_OUTPUT_CHARACTERS characters), then a note of what was left out.
 */
function cutToolOutput(output: string, colors: TranscriptColors): string[] {
  const lines = output.split("\n");
  const kept: string[] = [];
  let characters = 0;
  for (const line of lines) {
    if (kept.length === TOOL_OUTPUT_LINES || characters >= TOOL_OUTPUT_CHARACTERS) break;
    const room = TOOL_OUTPUT_CHARACTERS - characters;
    kept.push(line.length > room ? `${line.slice(0, room)}…` : line);
    characters += line.length + 1;
  }
  const hiddenLines = lines.length - kept.length;
  const lastCut = kept.length > 0 && kept[kept.length - 1]!.length < lines[kept.length - 1]!.length;
  if (hiddenLines === 0 && !lastCut) return kept;
  const what =
    hiddenLines > 0
      ? `${formatCount(hiddenLines, "more line")} of output`
      : `the rest of line ${kept.length}`;
  return [...kept, colors.note(`… ${what} hidden; --style full shows all of it`)];
}
