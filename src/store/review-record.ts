/**
 * Reading and writing the fields of a compaction review's record (`review.json`), apart from the
 * rest of the store so the listing can read it without loading any event-log code.
 */
import type { ConversationMeta, ReviewInfo, ReviewOutcome } from "./port.js";

/** The review record (`review.json`): which conversation a compaction review reviews, how it ended. */
export type ReviewFile = ReviewInfo;

/**
 * The review source from a review record, else from `compaction_source` in the metadata (where
 * versions before the review record kept it).
 */
export function reviewSourceFrom(record: unknown, meta: ConversationMeta | undefined): string | undefined {
  const fromRecord = isObject(record) ? record.source : undefined;
  if (typeof fromRecord === "string" && fromRecord !== "") return fromRecord;
  const legacy = meta?.compaction_source;
  return typeof legacy === "string" && legacy !== "" ? legacy : undefined;
}

/**
 * The whole review record (fields of the wrong type dropped), else the source from
 * `compaction_source` in the metadata; undefined when the conversation is not a review.
 */
export function reviewInfoFrom(record: unknown, meta: ConversationMeta | undefined): ReviewInfo | undefined {
  const source = reviewSourceFrom(record, meta);
  if (source === undefined) return undefined;
  const fields = isObject(record) ? record : {};
  const outcome = fields.outcome === "applied" || fields.outcome === "aborted" ? fields.outcome : undefined;
  return {
    source,
    ...(outcome === undefined ? {} : { outcome }),
    ...(typeof fields.ended_at === "string" ? { ended_at: fields.ended_at } : {}),
    ...(typeof fields.compaction_id === "string" ? { compaction_id: fields.compaction_id } : {}),
  };
}

/** The record of review `info` after it ended with `ending` at `now`. */
export function endedReviewInfo(
  info: ReviewInfo,
  ending: { readonly outcome: ReviewOutcome; readonly compactionId?: string },
  now: string,
): ReviewInfo {
  // A re-run of `--continue` after a crash knows the proposal was applied, not the compaction's id.
  const compactionId = ending.compactionId ?? (ending.outcome === "applied" ? info.compaction_id : undefined);
  return {
    source: info.source,
    outcome: ending.outcome,
    ended_at: now,
    ...(compactionId === undefined ? {} : { compaction_id: compactionId }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
