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
import { join } from "node:path";
import type { AdvisorState } from "../core/advisor.js";
import { CxcError } from "../errors.js";
import type { ReviewFile } from "./review-record.js";
import { unreadable, writeFileAtomic } from "./files.js";
import { ADVISOR_FILE, META_FILE, REVIEW_FILE } from "./paths.js";
import type { ConversationMeta } from "./port.js";

export function readMeta(directory: string): ConversationMeta {
  const path = join(directory, META_FILE);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code) {
      throw new CxcError("store-unreadable", `cannot read ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    throw new CxcError("corrupt-log", `${path}: not valid JSON`, {
      hint: "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand",
    });
  }
  if (!isMeta(value)) {
    throw new CxcError("corrupt-log", `${path}: missing id, created_at or updated_at`, {
      hint: "meta.json is a cache of title and timestamps; restore it from a backup or fix it by hand",
    });
  }
  return value;
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

function isMeta(value: unknown): value is ConversationMeta {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.id === "string" &&
    typeof record.created_at === "string" &&
    typeof record.updated_at === "string"
  );
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
  try {
    return JSON.parse(text);
  } catch {
    throw new CxcError("corrupt-log", `${path}: not valid JSON`, {
      hint: "restore it from a backup or fix it by hand",
    });
  }
}

/** Pretty-printed JSON with a trailing newline, fields set to undefined left out. */
function writeJson(path: string, value: object): void {
  const ordered: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) ordered[key] = inner;
  writeFileAtomic(path, `${JSON.stringify(ordered, null, 2)}\n`);
}
