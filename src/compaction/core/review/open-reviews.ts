/**
 * One open review per source (see review.ts): a live (not archived) conversation that records a
 * source blocks a second review of that source and every compaction write to it. A module of its
 * own, with no imports, so the store's guard can use it without loading the rest of the review
 * rules.
 */

/** A user-facing refusal: one line and a hint. */
export interface ReviewRefusal {
  readonly message: string;
  readonly hint: string;
}

/** What the review rules need to know about a stored conversation. */
export interface ReviewRecord {
  readonly id: string;
  readonly archived: boolean;
  /** The conversation this one reviews (its review record), when it is a compaction review. */
  readonly compactionSource?: string;
}

/** Ids of the open (not archived) reviews of `sourceId`, sorted. */
export function findOpenReviews(records: readonly ReviewRecord[], sourceId: string): string[] {
  return records
    .filter((record) => !record.archived && record.compactionSource === sourceId)
    .map((record) => record.id)
    .sort();
}

/**
 * Undefined when no review of `sourceId` is open; otherwise the refusal for starting a second
 * review (`start`) or for writing compactions to the source (`compact`).
 */
export function checkNoOpenReview(
  records: readonly ReviewRecord[],
  sourceId: string,
  purpose: "start" | "compact",
  activeId?: string,
): (ReviewRefusal & { readonly reviewId: string }) | undefined {
  const reviewId = findOpenReviews(records, sourceId)[0];
  if (reviewId === undefined) return undefined;
  // The review is the active conversation already: no `use` step to take.
  const active = activeId === reviewId;
  const steps = active
    ? "it is the active conversation: discuss (`cxc q`), then `cxc conversation compact --continue` or `--abort`"
    : "then discuss, `--continue`, or `--abort`";
  return purpose === "start"
    ? {
        reviewId,
        message: `a review of this conversation is already open: ${reviewId}`,
        hint: active ? steps : `switch to it with \`cxc conversation use ${reviewId}\`, ${steps}`,
      }
    : {
        reviewId,
        message: `a compaction review of this conversation is open: ${reviewId}`,
        hint: active
          ? `finish it first; ${steps}`
          : `finish it first: \`cxc conversation use ${reviewId}\`, ${steps}`,
      };
}
