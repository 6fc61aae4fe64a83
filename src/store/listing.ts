/**
 * Listing conversations from their metadata alone. Kept apart from store.ts so that
 * `cxc conversation ls` loads no event-log code (and so no schema library) at start-up.
 *
 * A listing cache (`cache/listing.json`, and `cache/listing-archive.json`) keeps each
 * conversation's metadata with the size and modification time of its `meta.json`. A listing
 * stats every `meta.json` and reads only those that changed, so a thousand conversations cost a
 * thousand `stat`s instead of a thousand reads and parses. The cache is never trusted beyond its
 * stats, holds only files older than the coarse tick of file times (see RACY_WINDOW_MS), is
 * rewritten (atomically, best effort) only when something changed, and is safe to delete.
 * Writers never touch it.
 *
 * A listing also says which conversations are compaction reviews (their review record), read with
 * the metadata and cached with it: the record is only ever written together with `meta.json` (in
 * the create that makes the review, and in the step that ends and archives it), so a cached entry
 * is as current as its metadata.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { isDebrisName, sweepDebris } from "./debris.js";
import { writeFileAtomic } from "./files.js";
import { reviewInfoFrom } from "./review-record.js";
import { readMeta, readReviewRecord } from "./meta.js";
import { archiveDirectory, conversationsDirectory } from "./paths.js";
import type { ConversationListing, ConversationMeta, ListedConversation, ReviewInfo } from "./port.js";

/** Metadata of live (or archived) conversations, newest activity first. */
export function listConversations(root: string, options: { archived?: boolean } = {}): ConversationListing {
  const archived = options.archived ?? false;
  const base = archived ? archiveDirectory(root) : conversationsDirectory(root);
  const conversations: ListedConversation[] = [];
  const warnings: string[] = [];
  const cachePath = join(root, "cache", archived ? "listing-archive.json" : "listing.json");
  const cached = readListingCache(cachePath);
  const fresh: Record<string, CachedMeta> = {};
  const now = Date.now();
  let changed = false;
  let reused = 0;
  const debris: string[] = [];
  const ids = listDirectory(base, debris);
  // Staging directories of creates that crashed (debris.ts); the archive never holds any.
  if (debris.length > 0) sweepDebris(base, debris);
  for (const id of ids) {
    // Plain concatenation: `join` on a thousand paths shows up in the profile of `ls`.
    const directory = `${base}/${id}`;
    try {
      const stat = statSync(`${directory}/meta.json`, { throwIfNoEntry: false });
      const hit = cached[id];
      if (stat && hit && hit.mtime_ms === stat.mtimeMs && hit.size === stat.size) {
        fresh[id] = hit;
        reused += 1;
        conversations.push(listed(hit.meta, archived, hit.review));
        continue;
      }
      const meta = readMeta(directory);
      const review = readReview(directory, meta, warnings);
      // File times tick coarsely (a few milliseconds), so a file rewritten in the same tick with
      // the same size would look unchanged. Only files older than that are cached: any later
      // rewrite then carries a later time. (Git guards its index against "racy" entries alike.)
      if (stat && now - stat.mtimeMs > RACY_WINDOW_MS) {
        fresh[id] = {
          mtime_ms: stat.mtimeMs,
          size: stat.size,
          meta,
          ...(review === undefined ? {} : { review }),
        };
        changed = true;
      }
      conversations.push(listed(meta, archived, review));
    } catch (error) {
      // A conversation archived, unarchived or removed since the directory was read has left:
      // it is listed where it went (or nowhere), not reported as unreadable. One that left and
      // came back meanwhile is read again.
      if (!existsSync(directory)) continue;
      try {
        conversations.push({ meta: readMeta(directory), archived });
      } catch {
        if (existsSync(directory)) warnings.push((error as Error).message);
      }
    }
  }
  // Rewrite when an entry was added or refreshed, or when the cache holds entries no longer listed.
  if (changed || reused !== Object.keys(cached).length) writeListingCache(cachePath, fresh);
  conversations.sort((a, b) =>
    a.meta.updated_at < b.meta.updated_at ? 1 : a.meta.updated_at > b.meta.updated_at ? -1 : 0,
  );
  return { conversations, warnings };
}

function listed(
  meta: ConversationMeta,
  archived: boolean,
  review: ReviewInfo | undefined,
): ListedConversation {
  return review === undefined ? { meta, archived } : { meta, archived, review };
}

/**
 * The review record of the conversation in `directory` (else the legacy field in its metadata); a
 * damaged record is a warning here, not a reason to leave the conversation out of the listing.
 */
function readReview(directory: string, meta: ConversationMeta, warnings: string[]): ReviewInfo | undefined {
  try {
    const record = readReviewRecord(directory);
    return reviewInfoFrom(record, record === undefined ? meta : undefined);
  } catch (error) {
    warnings.push((error as Error).message);
    return reviewInfoFrom(undefined, meta);
  }
}

/** The listing cache of live conversations, relative to the store root. */
export const LISTING_CACHE_FILE = "cache/listing.json";
const LISTING_CACHE_VERSION = 2;
const RACY_WINDOW_MS = 2_000;

interface CachedMeta {
  readonly mtime_ms: number;
  readonly size: number;
  readonly meta: ConversationMeta;
  readonly review?: ReviewInfo;
}

function readListingCache(path: string): Record<string, CachedMeta> {
  try {
    const document = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; entries?: unknown };
    if (document.version !== LISTING_CACHE_VERSION || typeof document.entries !== "object") return {};
    return (document.entries ?? {}) as Record<string, CachedMeta>;
  } catch {
    // Absent, unreadable or damaged: list from the metadata files and write a fresh cache.
    return {};
  }
}

function writeListingCache(path: string, entries: Record<string, CachedMeta>): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, JSON.stringify({ version: LISTING_CACHE_VERSION, entries }));
  } catch {
    // A read-only store still lists; it only stays uncached.
  }
}

/**
 * Names of the conversation directories below `directory` (dot entries skipped); names of debris
 * a crash left there (debris.ts) are added to `debris` when given.
 */
export function listDirectory(directory: string, debris?: string[]): string[] {
  try {
    const names: string[] = [];
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      if (!entry.name.startsWith(".")) names.push(entry.name);
      else if (debris !== undefined && isDebrisName(entry.name)) debris.push(entry.name);
    }
    return names;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
