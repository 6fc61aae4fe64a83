/**
 * The details `cxc conversation show` prints: built once as a JSON-ready object (stable snake_case
 * keys, 1-based turn numbers), then rendered as labelled text lines.
 */
import { activeCompactions } from "../../core/compactions.js";
import { isTurnEvent } from "../../core/events.js";
import {
  type ConversationSource,
  conversationSource,
  originFile,
  sourceName,
} from "../../core/interop/agents.js";
import { sanitizeTerminalText } from "../../core/sanitize.js";
import { countTurns } from "../../core/turns.js";
import type { LoadedConversation } from "../../store/index.js";
import { displayTitle, isPinned } from "./conversation-summary.js";
import { formatRelativeTime, formatTimestamp } from "./relative-time.js";
import { describePolicy } from "./transcript.js";

/** One compaction in force, as `show` lists it. */
export interface CompactionDetails {
  readonly number: number;
  readonly id: string;
  readonly from_turn: number;
  readonly to_turn: number;
  readonly policy: string;
  readonly summary: string | null;
  readonly reasoning: boolean;
  readonly tool_calls: unknown;
  readonly source: string;
  readonly note: string | null;
  readonly deferred_until_turn: number | null;
  readonly created_at: string;
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
  readonly compactions: readonly CompactionDetails[];
  readonly warnings: readonly string[];
}

/** Counts come from the log, not the metadata cache. */
export function buildConversationDetails(
  conversation: LoadedConversation,
  active: boolean,
): ConversationDetails {
  const { meta, events } = conversation;
  return {
    id: meta.id,
    title: meta.title ?? null,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    events: events.filter(isTurnEvent).length,
    turns: countTurns(events),
    archived: conversation.archived,
    archived_at: meta.archived_at ?? null,
    pinned: isPinned(meta),
    pinned_at: meta.pinned_at ?? null,
    active,
    forked_from: typeof meta.forked_from === "string" ? meta.forked_from : null,
    source: conversationSource(meta),
    source_file: originFile(meta) ?? null,
    // Compactions retired by a `compaction_reset` are left out; the numbers match `compact --reset=N`.
    compactions: activeCompactions(events).map(({ number, compaction }) => ({
      number,
      id: compaction.id,
      from_turn: compaction.from_turn + 1,
      to_turn: compaction.to_turn + 1,
      policy: describePolicy(compaction),
      summary: compaction.summary?.summary ?? null,
      reasoning: compaction.reasoning !== undefined,
      tool_calls: compaction.tool_calls ?? null,
      source: compaction.source,
      note: compaction.note ?? null,
      deferred_until_turn:
        compaction.deferred_until_turn === undefined ? null : compaction.deferred_until_turn + 1,
      created_at: compaction.ts,
    })),
    warnings: conversation.warnings,
  };
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
  const lines = rows.map(([label, value]) => `${`${label}:`.padEnd(13)}${value}`);
  lines.push("", details.compactions.length === 0 ? "Compactions: none" : "Compactions:");
  for (const item of details.compactions) {
    const extras = [item.policy, item.source];
    if (item.deferred_until_turn !== null) extras.push(`deferred until turn ${item.deferred_until_turn}`);
    const note = item.note ? ` — ${sanitizeTerminalText(item.note)}` : "";
    lines.push(`  ${item.number}. turns ${item.from_turn}..${item.to_turn} (${extras.join(", ")})${note}`);
  }
  return lines.join("\n");
}
