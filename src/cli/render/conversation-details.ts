/**
 * The details `cxc conversation show` prints: built once as a JSON-ready object (stable snake_case
 * keys, 1-based turn numbers), then rendered as labelled text lines. Like `git status` during a
 * rebase, the details say when a compaction review of the conversation is open, and, for a review,
 * which conversation it reviews and whether it is still open or ended applied or aborted.
 */
import { activeCompactions } from "../../core/conversation/compactions.js";
import { type CycleRange, compactionPolicies, replacingSummaries } from "../../core/conversation/cycles.js";
import { isTurnEvent, type NativeSummary, type PinPart } from "../../core/conversation/events.js";
import { formatDollars, type PriceSource, usageDollars } from "../../core/prices.js";
import { compactionLabel, describeSizedRange, formatCount } from "../../core/present/labels.js";
import { activePins, describePin } from "../../core/conversation/pins.js";
import {
  type ConversationSource,
  conversationSource,
  originFile,
  sourceName,
} from "../../core/interop/agents.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import { countTurns } from "../../core/conversation/turns.js";
import type { LoadedConversation, ReviewInfo } from "../../store/index.js";
import { displayTitle, isPinned } from "./conversation-summary.js";
import { formatRelativeTime } from "../../core/present/relative-time.js";
import { formatTimestamp } from "./relative-time.js";

/** One compaction in force, as `show` lists it. */
export interface CompactionDetails {
  readonly number: number;
  readonly id: string;
  readonly from_turn: number;
  readonly to_turn: number;
  /** First and last covered cycle (1-based) of a compaction inside a turn; null: whole turns. */
  readonly from_cycle: number | null;
  readonly to_cycle: number | null;
  /** `summary`, jp's label of the mechanical policies (`reasoning + tools`), or null (as `compact`). */
  readonly label: string | null;
  readonly summary: string | null;
  readonly reasoning: boolean;
  readonly tool_calls: unknown;
  readonly source: string;
  readonly note: string | null;
  readonly deferred_until_turn: number | null;
  /** True while the turn it waits for has not started (it is not in force yet). */
  readonly deferred: boolean;
  /** How many messages of its range the keep rules matched when it was written (kept verbatim). */
  readonly kept_by_rule: number;
  /** The number of the later summary in force that covers it whole: it changes nothing now. */
  readonly replaced_by: number | null;
  /** A provider's own summary (docs/native-compaction.md): whose, and what writing it cost. */
  readonly native: NativeDetails | null;
  readonly created_at: string;
}

/** A provider's own summary, as `show` lists it. */
export interface NativeDetails {
  /** `anthropic-compaction` (readable, signed) or `openai-compaction` (encrypted, Codex's). */
  readonly format: string;
  readonly model: string;
  /** What the provider reported writing it cost (`usage.iterations`); null when cxc did not ask for it. */
  readonly input_tokens: number | null;
  readonly output_tokens: number | null;
  /** Those tokens at the model's prices; null without usage or prices. */
  readonly dollars: number | null;
}

/** One pin in force, as `show` lists it (1-based turn and cycle). */
export interface PinDetails {
  readonly number: number;
  readonly id: string;
  readonly turn: number;
  readonly cycle: number | null;
  /** `user`, `assistant`, `results`, or null for every message. */
  readonly only: string | null;
  readonly source: string;
  readonly created_at: string;
}

/** A review's state: open while it is live; once archived, how it ended (`ended` when unknown). */
export type ReviewState = "open" | "applied" | "aborted" | "ended";

/** What `show` says about a compaction review. */
export interface ReviewDetails {
  readonly source: string;
  readonly state: ReviewState;
  readonly ended_at: string | null;
  readonly compaction_id: string | null;
  /** The current proposal of an open review, as `--continue` would apply it, and its check. */
  readonly proposal: ReviewProposalDetails | null;
}

/** The current proposal of a review. */
export interface ReviewProposalDetails {
  /** `compact turns 2..19 of 20 (summarize)`. */
  readonly text: string;
  readonly from_turn: number;
  readonly to_turn: number;
  readonly from_cycle: number | null;
  readonly to_cycle: number | null;
  /** What the summary check finds missing from the proposed summary (0 for a mechanical one). */
  readonly check_items: number;
}

/** Everything `show` reports about a conversation. */
export interface ConversationDetails {
  readonly id: string;
  readonly title: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly events: number;
  readonly turns: number;
  readonly archived: boolean;
  readonly archived_at: string | null;
  readonly pinned: boolean;
  readonly pinned_at: string | null;
  readonly active: boolean;
  readonly forked_from: string | null;
  /** Where it came from: `cxc`, `jp`, `claude-code`, `pi`. */
  readonly source: ConversationSource;
  /** The agent session file it was imported from. */
  readonly source_file: string | null;
  /** Its directory in the store (the log and metadata), and the store with why it is there. */
  readonly directory: string | null;
  readonly store: string | null;
  /** When this conversation is a compaction review: its source and state. */
  readonly review: ReviewDetails | null;
  /** The open compaction review of this conversation, if any. */
  readonly open_review: string | null;
  readonly compactions: readonly CompactionDetails[];
  /** The pins in force (`cxc conversation keep`), in stream order. */
  readonly pins: readonly PinDetails[];
  readonly warnings: readonly string[];
}

/** The state of a review with record `info`, live or archived. */
export function reviewState(info: ReviewInfo, archived: boolean): ReviewState {
  return archived ? (info.outcome ?? "ended") : "open";
}

/** Counts come from the log, not the metadata cache. */
export function buildConversationDetails(
  conversation: LoadedConversation,
  active: boolean,
  reviews: {
    readonly review?: ReviewInfo | undefined;
    readonly openReview?: string | undefined;
    readonly proposal?: ReviewProposalDetails | undefined;
  } = {},
  where: { readonly directory: string; readonly store: string } | undefined = undefined,
  pricesOf: (modelId: string) => PriceSource | undefined = () => undefined,
): ConversationDetails {
  const { meta, events } = conversation;
  const turnCount = countTurns(events);
  const inForce = activeCompactions(events);
  const replacedBy = replacingSummaries(
    inForce.map((entry) => entry.compaction),
    turnCount,
  );
  const { review } = reviews;
  return {
    id: meta.id,
    title: meta.title ?? null,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    events: events.filter(isTurnEvent).length,
    turns: turnCount,
    archived: conversation.archived,
    archived_at: meta.archived_at ?? null,
    pinned: isPinned(meta),
    pinned_at: meta.pinned_at ?? null,
    active,
    forked_from: typeof meta.forked_from === "string" ? meta.forked_from : null,
    source: conversationSource(meta),
    source_file: originFile(meta) ?? null,
    directory: where?.directory ?? null,
    store: where?.store ?? null,
    review:
      review === undefined
        ? null
        : {
            source: review.source,
            state: reviewState(review, conversation.archived),
            ended_at: conversation.archived ? (review.ended_at ?? null) : null,
            compaction_id: conversation.archived ? (review.compaction_id ?? null) : null,
            proposal: conversation.archived ? null : (reviews.proposal ?? null),
          },
    open_review: reviews.openReview ?? null,
    // Compactions retired by a `compaction_reset` are left out; the numbers match `compact --reset=N`.
    compactions: inForce.map(({ number, compaction }, index) => {
      const policies = compactionPolicies(compaction);
      const replacer = replacedBy[index];
      return {
        number,
        id: compaction.id,
        from_turn: compaction.from_turn + 1,
        to_turn: compaction.to_turn + 1,
        from_cycle: compaction.cycles?.from === undefined ? null : compaction.cycles.from + 1,
        to_cycle: compaction.cycles === undefined ? null : compaction.cycles.to + 1,
        label: compactionLabel(compaction) ?? null,
        summary: policies.summary?.summary ?? null,
        reasoning: policies.reasoning !== undefined,
        tool_calls: policies.tool_calls ?? null,
        source: compaction.source,
        note: compaction.note ?? null,
        deferred_until_turn:
          compaction.deferred_until_turn === undefined ? null : compaction.deferred_until_turn + 1,
        // Deferred to turn N (0-based): in force once turn N has started, i.e. there are N+1 turns.
        deferred: compaction.deferred_until_turn !== undefined && turnCount <= compaction.deferred_until_turn,
        kept_by_rule: compaction.pinned_events?.length ?? 0,
        replaced_by: replacer === undefined ? null : inForce[replacer]!.number,
        native: nativeDetails(policies.summary?.native, pricesOf),
        created_at: compaction.ts,
      };
    }),
    pins: activePins(events).map(({ number, pin }) => ({
      number,
      id: pin.id,
      turn: pin.turn + 1,
      cycle: pin.cycle === undefined ? null : pin.cycle + 1,
      only: pin.only ?? null,
      source: pin.source,
      created_at: pin.ts,
    })),
    warnings: conversation.warnings,
  };
}

/** A provider's own summary and its cost, priced at its model's prices when they are known. */
function nativeDetails(
  native: NativeSummary | undefined,
  pricesOf: (modelId: string) => PriceSource | undefined,
): NativeDetails | null {
  if (native === undefined) return null;
  const usage = native.usage;
  const prices = usage === undefined ? undefined : pricesOf(native.model);
  return {
    format: native.format,
    model: native.model,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    dollars: usage === undefined || prices === undefined ? null : usageDollars(usage, prices.prices),
  };
}

/**
 * What a listed compaction says of a provider's summary: `native summary by <model> (1200 input
 * and 300 output tokens, $0.024)`; Codex's `encrypted compaction by <model>`.
 */
function describeNative(native: NativeDetails): string {
  if (native.format === "openai-compaction") return `encrypted compaction by ${native.model}`;
  const cost =
    native.input_tokens === null || native.output_tokens === null
      ? ""
      : ` (${native.input_tokens} input and ${native.output_tokens} output tokens${native.dollars === null ? "" : `, ${formatDollars(native.dollars)}`})`;
  return `native summary by ${native.model}${cost}`;
}

/** The 0-based range of a listed compaction. */
function rangeOfItem(item: CompactionDetails): CycleRange {
  return {
    from: item.from_turn - 1,
    to: item.to_turn - 1,
    ...(item.from_cycle === null ? {} : { fromCycle: item.from_cycle - 1 }),
    ...(item.to_cycle === null ? {} : { toCycle: item.to_cycle - 1 }),
  };
}

/**
 * One compaction item: jp's text (`turns 2..3 (2 total, reasoning + tools)`, or inside a turn
 * `turn 4, cycles 1..37 (37 cycles, tool responses)`), then cxc's own facts in brackets of their
 * own (who made it, a deferral not yet reached), then the note.
 */
export function renderCompactionItem(item: CompactionDetails): string {
  const facts = [item.source];
  if (item.native !== null) facts.push(describeNative(item.native));
  if (item.deferred) facts.push(`deferred until turn ${item.deferred_until_turn}`);
  if (item.kept_by_rule > 0) facts.push(`keeps ${formatCount(item.kept_by_rule, "message")} by rule`);
  // Still in force (a reset of the later summary brings it back), but it changes nothing now.
  if (item.replaced_by !== null) facts.push(`replaced by ${item.replaced_by}`);
  const note = item.note ? ` — ${sanitizeTerminalText(item.note)}` : "";
  return `${describeSizedRange(rangeOfItem(item), item.label ?? undefined)} [${facts.join(", ")}]${note}`;
}

/** Labelled lines, then the numbered compactions. Untrusted text (title, notes) is sanitized. */
export function renderConversationDetails(details: ConversationDetails, nowMs: number): string {
  const when = (timestamp: string): string =>
    `${formatTimestamp(timestamp)} (${formatRelativeTime(timestamp, nowMs)})`;
  const yesNo = (value: boolean): string => (value ? "yes" : "no");
  const rows: [string, string][] = [
    ["id", details.id],
    ["title", displayTitle(details)],
    ["created", when(details.created_at)],
    ["updated", when(details.updated_at)],
    ["events", String(details.events)],
    ["turns", String(details.turns)],
    ["archived", details.archived_at ? `yes, ${when(details.archived_at)}` : yesNo(details.archived)],
    ["pinned", details.pinned_at ? `yes, ${when(details.pinned_at)}` : "no"],
    ["active", yesNo(details.active)],
  ];
  if (details.forked_from) rows.push(["forked from", details.forked_from]);
  const source = sourceName(details.source);
  rows.push([
    "from",
    details.source_file ? `${source}, ${sanitizeTerminalText(details.source_file)}` : source,
  ]);
  if (details.directory !== null) rows.push(["directory", sanitizeTerminalText(details.directory)]);
  if (details.store !== null) rows.push(["store", sanitizeTerminalText(details.store)]);
  if (details.review !== null) rows.push(["review of", describeReview(details.review, nowMs)]);
  const proposal = details.review?.proposal;
  if (proposal !== null && proposal !== undefined) {
    const check =
      proposal.check_items === 0
        ? ""
        : `; the summary check lists ${formatCount(proposal.check_items, "item")} it leaves out`;
    rows.push(["proposal", `${proposal.text}${check}`]);
  }
  if (details.open_review !== null) rows.push(["review", `${details.open_review} open`]);
  const lines = rows.map(([label, value]) => `${`${label}:`.padEnd(13)}${value}`);
  lines.push("", details.compactions.length === 0 ? "Compactions: none" : "Compactions:");
  for (const item of details.compactions) lines.push(`  ${item.number}. ${renderCompactionItem(item)}`);
  if (details.pins.length > 0) {
    lines.push("", "Kept verbatim (cxc conversation unkeep N|N.C [--only PART] to stop):");
    for (const item of details.pins) {
      const place = describePin({
        turn: item.turn - 1,
        ...(item.cycle === null ? {} : { cycle: item.cycle - 1 }),
        ...(item.only === null ? {} : { only: item.only as PinPart }),
      });
      lines.push(`  ${item.number}. ${place} [${item.source}]`);
    }
  }
  return lines.join("\n");
}

/** `01abc, open`, `01abc, applied 2 minutes ago`, `01abc, aborted 3 days ago`. */
function describeReview(review: ReviewDetails, nowMs: number): string {
  const when = review.ended_at === null ? "" : ` ${formatRelativeTime(review.ended_at, nowMs)}`;
  return `${review.source}, ${review.state}${review.state === "open" ? "" : when}`;
}
