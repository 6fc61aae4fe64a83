/**
 * Conversation metadata: `meta.json`, a small JSON object written atomically.
 *
 * `event_count`, `turn_count` and `updated_at` are a cache kept current by every append (so
 * `cxc conversation ls` never reads logs); `show` recomputes them from the log. Unknown fields
 * written by a newer cxc are kept.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CxcError } from "../errors.js";
import { writeFileAtomic } from "./files.js";
import { META_FILE } from "./paths.js";

export interface ConversationMeta {
  readonly id: string;
  readonly title?: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly pinned_at?: string;
  readonly archived_at?: string;
  /** For a compaction review conversation: the id of the conversation under review. */
  readonly compaction_source?: string;
  readonly event_count?: number;
  readonly turn_count?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

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
  const ordered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) if (value !== undefined) ordered[key] = value;
  writeFileAtomic(join(directory, META_FILE), `${JSON.stringify(ordered, null, 2)}\n`);
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

/** A copy of `meta` with `key` removed. */
export function withoutKey(meta: ConversationMeta, key: string): ConversationMeta {
  const copy: Record<string, unknown> = { ...meta };
  delete copy[key];
  return copy as ConversationMeta;
}
