/**
 * The small JSON files beside a conversation's log, each written atomically:
 *
 * - `meta.json`, the metadata. `event_count`, `turn_count` and `updated_at` are a cache kept
 *   current by every append (so `cxc conversation ls` never reads logs); `show` recomputes them
 *   from the log. Unknown fields written by a newer cxc are kept.
 * - `review.json`, a compaction review's record: the conversation it reviews. Written with the
 *   review when it is created, and once more with how it ended when `--continue` or `--abort`
 *   archives it (review-record.ts has its fields).
 * - `advisor.json`, the advisor's record: what it last announced and whether it has warned.
 *
 * Older versions kept the last two in `meta.json` (`compaction_source`, `advisor`); those fields
 * are still read when the record is missing (common.ts), and never written again.
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { AdvisorState } from "../compaction/core/advisor/advisor.js";
import { CxcError } from "../errors.js";
import { parseStoreJson, readTextOr, unreadable, writeFileAtomic } from "./files.js";
import type { ReviewFile } from "./review-record.js";
import { ADVISOR_FILE, META_FILE, REVIEW_FILE } from "./paths.js";
import type { ConversationMeta } from "./port.js";

export function readMeta(directory: string): ConversationMeta {
  const path = join(directory, META_FILE);
  const text = readTextOr(path, (message, cause) => new CxcError("store-unreadable", message, { cause }));
  const value = parseStoreJson(text, path, META_HINT);
  const problem = metaProblem(value, basename(directory));
  if (problem !== undefined) throw new CxcError("corrupt-log", `${path}: ${problem}`, { hint: META_HINT });
  return value as ConversationMeta;
}

const META_HINT = "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand";

/**
 * What is wrong with metadata read from the directory named `directoryName`, if anything: the
 * fields cxc reads must have their types (a title that is an object would print as
 * "[object Object]"), and the id must be the directory's (metadata copied from another
 * conversation would be written back under the wrong id by the next change).
 */
function metaProblem(value: unknown, directoryName: string): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const record = value as Record<string, unknown>;
  for (const key of ["id", "created_at", "updated_at"]) {
    if (typeof record[key] !== "string") return `missing id, created_at or updated_at`;
  }
  if (record.id !== directoryName) {
    return `the id '${String(record.id)}' is not this conversation's (its directory is ${directoryName})`;
  }
  for (const key of ["title", "pinned_at", "archived_at"]) {
    if (record[key] !== undefined && typeof record[key] !== "string") return `\`${key}\` must be a string`;
  }
  for (const key of ["event_count", "turn_count"]) {
    const count = record[key];
    if (count !== undefined && !(Number.isSafeInteger(count) && (count as number) >= 0)) {
      return `\`${key}\` must be a whole number`;
    }
  }
  const labels = record.labels;
  if (
    labels !== undefined &&
    (typeof labels !== "object" ||
      labels === null ||
      Array.isArray(labels) ||
      Object.values(labels).some((label) => typeof label !== "string"))
  ) {
    return "`labels` must be a table of strings";
  }
  return undefined;
}

export function writeMeta(directory: string, meta: ConversationMeta): void {
  writeJson(join(directory, META_FILE), meta);
}

/** A copy of `meta` with `key` removed. */
export function withoutKey(meta: ConversationMeta, key: string): ConversationMeta {
  const copy: Record<string, unknown> = { ...meta };
  delete copy[key];
  return copy as ConversationMeta;
}

/** The review record of the conversation in `directory`, as parsed JSON; undefined when absent. */
export function readReviewRecord(directory: string): unknown {
  return readRecord(join(directory, REVIEW_FILE));
}

export function writeReviewRecord(directory: string, record: ReviewFile): void {
  writeJson(join(directory, REVIEW_FILE), record);
}

/**
 * The advisor record of the conversation in `directory`, as parsed JSON; undefined when absent or
 * unreadable: the advisor must never cost a turn, and forgetting only means announcing again.
 */
export function readAdvisorRecord(directory: string): unknown {
  try {
    return readRecord(join(directory, ADVISOR_FILE));
  } catch {
    return undefined;
  }
}

export function writeAdvisorRecord(directory: string, state: AdvisorState): void {
  writeJson(join(directory, ADVISOR_FILE), state);
}

/**
 * A record file's JSON; undefined when there is none. A record that exists but cannot be read or
 * parsed is an error naming it: a record is data, not a cache, and silently reading "nothing"
 * would, for a review, let compactions through to the conversation under review.
 */
function readRecord(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw unreadable(path, error);
  }
  return parseStoreJson(text, path, "restore it from a backup or fix it by hand");
}

/** Pretty-printed JSON with a trailing newline, fields set to undefined left out. */
function writeJson(path: string, value: object): void {
  const ordered: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) ordered[key] = inner;
  writeFileAtomic(path, `${JSON.stringify(ordered, null, 2)}\n`);
}
