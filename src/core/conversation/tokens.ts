/**
 * Token accounting: how many tokens each turn and each kind of content costs, over raw or projected
 * turns, plus the small text renderers `cxc conversation stats` uses. Pure.
 *
 * Counting is delegated to a `countTokens(text)` function passed in by the shell (gpt-tokenizer's
 * o200k_base, loaded lazily), so core has no tokenizer state and tests can count characters.
 *
 * Local counts are estimates: providers tokenize differently and add framing per message. The
 * provider's usage (see `ProviderUsage` for the convention) puts them on the provider's scale
 * (`plausibleScale`; the context gauge, compaction/core/advisor/context-gauge.ts, measures it).
 */
import type { ChatResponse, ConversationEvent, ToolCallRequest, TurnEvent } from "./events.js";
import { IN_TURN_SUMMARY_HEADING, SUMMARY_REQUEST_TEXT } from "./projection.js";
import type { Turn } from "./turns.js";

/** The kinds of content tokens are counted for. */
export const TOKEN_KINDS = [
  "user",
  "assistant",
  "reasoning",
  "tool_arguments",
  "tool_output",
  "summary",
] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Counts the tokens of a text (e.g. gpt-tokenizer's `countTokens`); the same text, the same count. */
export type TokenCounter = (text: string) => number;

/** Tokens per kind of content. */
export type TokensByKind = Record<TokenKind, number>;

/**
 * Usage a provider reported for one request, stored as `metadata.usage` on the last event cxc
 * stored of that request's answer (its text, reasoning or last tool call; Anthropic's field names;
 * the OpenAI adapters map `prompt_tokens`/`input_tokens` onto `input_tokens` less the cached part,
 * which goes to `cache_read_input_tokens`). The importers of Claude Code, pi and Codex sessions put
 * each request's usage on the event it belongs to the same way, with `reported_by` naming the agent.
 *
 * Convention: the prompt (`input_tokens + cache_read_input_tokens + cache_creation_input_tokens`)
 * is everything the request sent, system prompt and tool definitions included, and `output_tokens`
 * the answer (its reasoning included, `reasoning_tokens` of it where the provider says), so their
 * sum is the context after that request as the provider counts it (see compaction/core/advisor/next-request.ts).
 */
export interface ProviderUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  /** The part of `output_tokens` spent on reasoning, where the provider reports it. */
  readonly reasoning_tokens?: number;
  /** The agent whose session recorded it (`claude-code`, `pi`, `codex`); absent: a request cxc made. */
  readonly reported_by?: string;
  /** The tools a request cxc made offered (their names), when it offered any. */
  readonly tools?: readonly string[];
  /**
   * The agent's id of the request (Claude Code's message id, Codex's response id): an agent may
   * record one request's usage on several of its records, and a sum counts it once.
   */
  readonly request?: string;
}

/** The tokens of one turn. */
export interface TurnTokens {
  /** The turn's 0-based index (for a projected view, the index in that view). */
  readonly index: number;
  readonly byKind: TokensByKind;
  readonly total: number;
  /** Usage reported on the turn's last `chat_response`, when there is valid usage. */
  readonly usage: ProviderUsage | undefined;
}

/** Token accounting over a list of turns. */
export interface TokenSummary {
  readonly turns: readonly TurnTokens[];
  readonly byKind: TokensByKind;
  /** Sum of the local estimates. */
  readonly total: number;
}

export function createEmptyTokensByKind(): Record<TokenKind, number> {
  return { user: 0, assistant: 0, reasoning: 0, tool_arguments: 0, tool_output: 0, summary: 0 };
}

/**
 * Counts one turn. A summary turn injected by projection (its request is
 * `[Summary of previous conversation]`) counts entirely as `summary`, and so does a summary
 * standing inside a turn (a request starting `[Summary of earlier steps in this turn]`).
 * Inquiries and `turn_start` are not sent to a provider and count nothing.
 */
export function countTurnTokens(turn: Turn, countTokens: TokenCounter): TurnTokens {
  const byKind = createEmptyTokensByKind();
  const isSummary = turn.events.some(
    (event) => event.type === "chat_request" && event.content === SUMMARY_REQUEST_TEXT,
  );
  for (const event of turn.events) {
    const counted = countEventOnce(event, countTokens);
    if (counted) byKind[isSummary || isInTurnSummary(event) ? "summary" : counted.kind] += counted.tokens;
  }
  const total = TOKEN_KINDS.reduce((sum, kind) => sum + byKind[kind], 0);
  return { index: turn.index, byKind, total, usage: findTurnUsage(turn) };
}

const IN_TURN_SUMMARY_PREFIX = `${IN_TURN_SUMMARY_HEADING}\n\n`;

function isInTurnSummary(event: TurnEvent): boolean {
  return event.type === "chat_request" && event.content.startsWith(IN_TURN_SUMMARY_PREFIX);
}

type CountedEvent = { kind: TokenKind; tokens: number } | undefined;

/** The tokens one event costs the model (0 for events that are not sent: `turn_start`, inquiries). */
export function countEventTokens(event: TurnEvent, countTokens: TokenCounter): number {
  return countEventOnce(event, countTokens)?.tokens ?? 0;
}

/**
 * The text an event is counted by (see `countEventTokens`); two events with the same id and the
 * same text cost the same.
 */
export function countedText(event: TurnEvent): string | undefined {
  switch (event.type) {
    case "chat_request":
      return event.schema === undefined ? event.content : `${event.content}\n${JSON.stringify(event.schema)}`;
    case "chat_response":
      return event.reasoning ?? event.message ?? JSON.stringify(event.data ?? null);
    case "tool_call_request":
      return renderToolCall(event);
    case "tool_call_response":
      return event.content;
    default:
      return undefined;
  }
}

/**
 * Each event's count, per counter: a counter must give a text the same count for as long as it is
 * used (make a new function for counts that change). Events are immutable, and the views a preview compares (before
 * and after each segment, the whole conversation) share the events of every turn they leave alone,
 * so each is rendered and counted once instead of once per view.
 */
const countsByCounter = new WeakMap<TokenCounter, WeakMap<TurnEvent, CountedEvent>>();

function countEventOnce(event: TurnEvent, countTokens: TokenCounter): CountedEvent {
  let counts = countsByCounter.get(countTokens);
  if (counts === undefined) {
    counts = new WeakMap();
    countsByCounter.set(countTokens, counts);
  }
  if (counts.has(event)) return counts.get(event);
  const counted = countEvent(event, countTokens);
  counts.set(event, counted);
  return counted;
}

function countEvent(
  event: TurnEvent,
  countTokens: TokenCounter,
): { kind: TokenKind; tokens: number } | undefined {
  switch (event.type) {
    case "chat_request": {
      const schema = event.schema === undefined ? "" : JSON.stringify(event.schema);
      return { kind: "user", tokens: countTokens(event.content) + (schema ? countTokens(schema) : 0) };
    }
    case "chat_response":
      return countResponse(event, countTokens);
    case "tool_call_request":
      return { kind: "tool_arguments", tokens: countTokens(renderToolCall(event)) };
    case "tool_call_response":
      return { kind: "tool_output", tokens: countTokens(event.content) };
    default:
      return undefined;
  }
}

function countResponse(event: ChatResponse, countTokens: TokenCounter): { kind: TokenKind; tokens: number } {
  if (event.reasoning !== undefined) return { kind: "reasoning", tokens: countTokens(event.reasoning) };
  const text = event.message ?? JSON.stringify(event.data ?? null);
  return { kind: "assistant", tokens: countTokens(text) };
}

/** What the model wrote for a call: its name and its JSON arguments. */
function renderToolCall(event: ToolCallRequest): string {
  return `${event.name} ${JSON.stringify(event.arguments)}`;
}

/** The usage of the turn's last request that reported one. */
export function findTurnUsage(turn: Turn): ProviderUsage | undefined {
  for (let position = turn.events.length - 1; position >= 0; position--) {
    const usage = readEventUsage(turn.events[position]!);
    if (usage !== undefined) return usage;
  }
  return undefined;
}

/**
 * Reads the usage of each turn event of `events`: its own `metadata.usage`, else the latest
 * `usage` record naming it (usage learnt after the event was stored: `import --update`).
 */
export function usageReader(
  events: readonly ConversationEvent[],
): (event: {
  readonly id: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}) => ProviderUsage | undefined {
  const learnt = new Map<string, unknown>();
  for (const event of events) if (event.type === "usage") learnt.set(event.event, event.usage);
  if (learnt.size === 0) return readEventUsage;
  return (event) => readEventUsage(event) ?? parseUsage(learnt.get(event.id));
}

/** The usage an event carries in `metadata.usage`, when it has the numeric fields it needs. */
export function readEventUsage(event: {
  readonly metadata?: Readonly<Record<string, unknown>>;
}): ProviderUsage | undefined {
  return parseUsage(event.metadata?.usage);
}

function parseUsage(value: unknown): ProviderUsage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const isCount = (field: unknown) => typeof field === "number" && Number.isFinite(field) && field >= 0;
  if (!isCount(record.input_tokens) || !isCount(record.output_tokens)) return undefined;
  const optional = (field: unknown) => (isCount(field) ? (field as number) : 0);
  const usage: ProviderUsage = {
    input_tokens: record.input_tokens as number,
    output_tokens: record.output_tokens as number,
    cache_read_input_tokens: optional(record.cache_read_input_tokens),
    cache_creation_input_tokens: optional(record.cache_creation_input_tokens),
    ...(isCount(record.reasoning_tokens) ? { reasoning_tokens: record.reasoning_tokens as number } : {}),
    ...(typeof record.reported_by === "string" ? { reported_by: record.reported_by } : {}),
    ...(typeof record.request === "string" ? { request: record.request } : {}),
    ...(Array.isArray(record.tools) && record.tools.every((name) => typeof name === "string")
      ? { tools: record.tools as string[] }
      : {}),
  };
  // A usage of nothing is a placeholder (an export writes zeros where the format needs a usage).
  return reportedContextTokens(usage) > 0 ? usage : undefined;
}

/** The context size a usage record describes (see `ProviderUsage`). */
export function reportedContextTokens(usage: ProviderUsage): number {
  return (
    usage.input_tokens +
    (usage.cache_read_input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0) +
    usage.output_tokens
  );
}

/** Counts every turn and sums per kind. */
export function summarizeTokens(turns: readonly Turn[], countTokens: TokenCounter): TokenSummary {
  const counted = turns.map((turn) => countTurnTokens(turn, countTokens));
  const byKind = createEmptyTokensByKind();
  for (const turn of counted) for (const kind of TOKEN_KINDS) byKind[kind] += turn.byKind[kind];
  const total = TOKEN_KINDS.reduce((sum, kind) => sum + byKind[kind], 0);
  return { turns: counted, byKind, total };
}

/**
 * Provider tokens per counted token: `reported / estimated`, the two counts of one context.
 * Undefined when either is nothing, or when the ratio is far outside what tokenizers differ by
 * (tens of percent, not multiples): such usage describes another context (a fork that dropped
 * earlier turns keeps the usage its last turn had in the original conversation), so it scales
 * nothing.
 */
export function plausibleScale(reported: number, estimated: number): number | undefined {
  if (estimated <= 0 || reported <= 0) return undefined;
  const factor = reported / estimated;
  return factor >= MIN_PLAUSIBLE_FACTOR && factor <= MAX_PLAUSIBLE_FACTOR ? factor : undefined;
}

const MIN_PLAUSIBLE_FACTOR = 0.5;
/** The largest scale `plausibleScale` accepts. */
export const MAX_PLAUSIBLE_FACTOR = 2.5;

/**
 * A compact token count: `950`, `4.8k`, `48.2k`, `482k`, `1.3M`. Rounds to whole tokens first;
 * negative counts (savings) keep their sign.
 */
export function formatTokenCount(count: number): string {
  const rounded = Math.round(count);
  if (rounded < 0) return `-${formatTokenCount(-rounded)}`;
  if (rounded < 1000) return String(rounded);
  if (rounded < 99_950) return `${(rounded / 1000).toFixed(1)}k`;
  if (rounded < 999_500) return `${Math.round(rounded / 1000)}k`;
  if (rounded < 99_950_000) return `${(rounded / 1_000_000).toFixed(1)}M`;
  return `${Math.round(rounded / 1_000_000)}M`;
}

/** One bar of `renderTokenBars`. */
export interface TokenBarRow {
  readonly label: string;
  readonly value: number;
}

const PARTIAL_BLOCKS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/**
 * A text bar chart, one line per row: the label padded to the longest, the count right-aligned,
 * then a bar whose length is proportional to the value (the largest value fills `width` cells, in
 * eighths of a cell). Lines carry no trailing spaces. A non-zero value always shows at least ▏.
 */
export function renderTokenBars(rows: readonly TokenBarRow[], width: number): string {
  const cells = Math.max(1, Math.floor(width));
  const labelWidth = Math.max(0, ...rows.map((row) => row.label.length));
  const counts = rows.map((row) => formatTokenCount(row.value));
  const countWidth = Math.max(0, ...counts.map((count) => count.length));
  const largest = Math.max(0, ...rows.map((row) => row.value));
  return rows
    .map((row, position) => {
      const eighths =
        largest > 0 && row.value > 0 ? Math.max(1, Math.round((row.value / largest) * cells * 8)) : 0;
      const bar = "█".repeat(Math.floor(eighths / 8)) + PARTIAL_BLOCKS[eighths % 8];
      return `${row.label.padEnd(labelWidth)}  ${counts[position]!.padStart(countWidth)}  ${bar}`.trimEnd();
    })
    .join("\n");
}

/** The rows of a per-kind chart, in `TOKEN_KINDS` order, leaving out kinds with no tokens. */
export function tokenKindRows(byKind: TokensByKind): TokenBarRow[] {
  return TOKEN_KINDS.filter((kind) => byKind[kind] > 0).map((kind) => ({ label: kind, value: byKind[kind] }));
}
