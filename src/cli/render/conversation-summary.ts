/**
 * Small shared views of conversation metadata for listings and details: the title as shown, the
 * pinned flag, and the stable JSON shape of one listed conversation.
 */
import { conversationSource } from "../../core/interop/agents.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import type { ConversationMeta, ListedConversation } from "../../store/index.js";

/** The title for text output (sanitized), or a placeholder. */
export function displayTitle(meta: { readonly title?: string | null | undefined }): string {
  if (!meta.title) return "(untitled)";
  // Most titles are words separated by single spaces already (a listing shows a thousand).
  if (PLAIN_TITLE.test(meta.title)) return meta.title;
  return sanitizeTerminalText(meta.title).replace(/\s+/g, " ").trim();
}

/** Words of characters that are neither whitespace nor controls (bidirectional ones included), joined by single spaces. */
const PLAIN_TITLE =
  /^[^\s\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+(?: [^\s\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+)*$/;

export function isPinned(meta: ConversationMeta): boolean {
  return typeof meta.pinned_at === "string";
}

/** The JSON object for one conversation in `ls` (stable snake_case keys). */
export function listedConversationJson(
  meta: ConversationMeta,
  flags: {
    readonly archived: boolean;
    readonly active: boolean;
    readonly review?: ListedConversation["review"];
    readonly openReview?: string | undefined;
  },
): Record<string, unknown> {
  const review = flags.review;
  return {
    id: meta.id,
    title: meta.title ?? null,
    turns: meta.turn_count ?? 0,
    events: meta.event_count ?? 0,
    source: conversationSource(meta),
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    pinned: isPinned(meta),
    pinned_at: meta.pinned_at ?? null,
    archived: flags.archived,
    active: flags.active,
    review:
      review === undefined
        ? null
        : { source: review.source, state: flags.archived ? (review.outcome ?? "ended") : "open" },
    open_review: flags.openReview ?? null,
  };
}

/**
 * The open compaction review of each source among `listed` (live conversations): source id →
 * review id (the first by id when, against the rules, there are several).
 */
export function openReviewsBySource(listed: readonly ListedConversation[]): Map<string, string> {
  const open = new Map<string, string>();
  for (const entry of listed) {
    if (entry.archived || entry.review === undefined) continue;
    const known = open.get(entry.review.source);
    if (known === undefined || entry.meta.id < known) open.set(entry.review.source, entry.meta.id);
  }
  return open;
}

/** The note after a title in `ls`: `(review 01xyz open)` on a source, `(review of 01abc, applied)` on a review. */
export function reviewNote(entry: ListedConversation, openReview: string | undefined): string | undefined {
  if (entry.review !== undefined) {
    const state = entry.archived ? (entry.review.outcome ?? "ended") : "open";
    return `(review of ${entry.review.source}, ${state})`;
  }
  return openReview === undefined ? undefined : `(review ${openReview} open)`;
}

/** Pinned first (most recently pinned first), then most recently updated first. */
export function compareForListing(left: ConversationMeta, right: ConversationMeta): number {
  const leftPinned = left.pinned_at ?? "";
  const rightPinned = right.pinned_at ?? "";
  if (leftPinned !== rightPinned) {
    if (leftPinned === "" || rightPinned === "") return leftPinned === "" ? 1 : -1;
    return leftPinned < rightPinned ? 1 : -1;
  }
  if (left.updated_at !== right.updated_at) return left.updated_at < right.updated_at ? 1 : -1;
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0;
}
