/**
 * The open-review scan of the store, and the guard every compaction write to a conversation goes
 * through: while a live review names a conversation as its `compaction_source`, `compact` in every
 * form (`--reset` and `--undo-reset` included) and `q -k` refuse to touch it (seed D66). Dry runs
 * and ordinary chat do not call the guard.
 */
import { checkNoOpenReview, type ReviewRecord } from "../core/review.js";
import { CxcError } from "../errors.js";
import type { ConversationStore } from "./store.js";

/** The live conversations as review records (archived reviews never block, so they are skipped). */
export function listReviewRecords(store: Pick<ConversationStore, "list">): ReviewRecord[] {
  return store.list({ archived: false }).conversations.map(({ meta }) => ({
    id: meta.id,
    archived: false,
    ...(typeof meta.compaction_source === "string" ? { compactionSource: meta.compaction_source } : {}),
  }));
}

/**
 * Throws `review-open` when a review of `sourceId` is open. `purpose` picks the text: starting a
 * second review, or writing compactions to the source.
 */
export function assertNoOpenReview(
  store: Pick<ConversationStore, "list">,
  sourceId: string,
  purpose: "start" | "compact" = "compact",
): void {
  const refusal = checkNoOpenReview(listReviewRecords(store), sourceId, purpose);
  if (refusal !== undefined) throw new CxcError("review-open", refusal.message, { hint: refusal.hint });
}
