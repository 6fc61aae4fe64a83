/**
 * The guard every compaction write to a conversation goes through: while a live review names a
 * conversation as its source (the review record), `compact` in every form (`--reset` and
 * `--undo-reset` included) and `q -k` refuse to touch it. Dry runs and ordinary chat do not call
 * the guard.
 */
import { checkNoOpenReview } from "../compaction/core/review/open-reviews.js";
import { CxcError } from "../errors.js";
import type { StoreReader } from "./port.js";

/**
 * Throws `review-open` when a review of `sourceId` is open. `purpose` picks the text: starting a
 * second review, or writing compactions to the source.
 */
export function assertNoOpenReview(
  store: StoreReader,
  sourceId: string,
  purpose: "start" | "compact" = "compact",
): void {
  const refusal = checkNoOpenReview(store.openReviews(), sourceId, purpose, store.active());
  if (refusal !== undefined) throw new CxcError("review-open", refusal.message, { hint: refusal.hint });
}
