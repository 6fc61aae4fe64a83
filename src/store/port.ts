/**
 * The store port: everything the rest of cxc knows about where conversations are kept. Two
 * implementations keep the same promises: files under a store root (`ConversationStore` in
 * store.ts, the one the CLI uses) and memory (`MemoryStore` in memory-store.ts, for tests of the
 * shell that need a store but no directory). test/store/contract.test.ts runs one suite against
 * both.
 *
 * The promises:
 * - A conversation's events are only ever appended; every load returns them as stored.
 * - `create` is all or nothing: a conversation exists with its events and metadata, or not at all.
 * - Every mutation of a conversation happens under its lock. Appends and the advisor record go
 *   only through the `LockedConversation` that `locked` hands its action, which refuses to be used
 *   once the lock is released; the other mutations take the lock themselves. A second holder waits
 *   until the lock timeout (`CXC_LOCK_TIMEOUT_MS`, default 10 s), then fails with `lock-timeout`.
 * - Archived conversations keep everything; they are listed apart and never block a compaction.
 * - The active conversation belongs to a session (`CXC_SESSION`, else the store-wide default).
 * - Reads take no lock.
 *
 * Types only; the entry module (index.ts) re-exports them with the factories.
 */
import type { AdvisorState } from "../compaction/core/advisor/advisor.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import type { ReviewRecord } from "../compaction/core/review/open-reviews.js";
import type { TokenCounter } from "../core/conversation/tokens.js";

/** Environment variables (`process.env` or a test's own). */
export type Environment = Readonly<Record<string, string | undefined>>;

export type StoreKind = "workspace" | "home";

/** Where a file store lives and why (paths.ts decides). */
export interface StoreLocation {
  readonly kind: StoreKind;
  /** The store directory (`<workspace>/.cxc` or the user data directory). */
  readonly root: string;
  /** Why this root was chosen, for `cxc config show` and error messages. */
  readonly origin: string;
}

/** A conversation's metadata (`meta.json`); unknown fields written by a newer cxc are kept. */
export interface ConversationMeta {
  readonly id: string;
  readonly title?: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly pinned_at?: string;
  readonly archived_at?: string;
  readonly event_count?: number;
  readonly turn_count?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

/** Line 1 of a conversation log. */
export interface LogHeader {
  readonly cxc: "conversation-log";
  readonly version: number;
  readonly id: string;
  readonly created_at: string;
}

/** A conversation's events as stored. */
export interface LoadedLog {
  readonly header: LogHeader;
  readonly events: ConversationEvent[];
  /** Problems that did not stop the load (a torn final line), one sentence each. */
  readonly warnings: string[];
}

/** A conversation as `load` returns it. */
export interface LoadedConversation extends LoadedLog {
  readonly meta: ConversationMeta;
  readonly archived: boolean;
}

export interface CreateOptions {
  readonly title?: string;
  readonly id?: string;
  readonly createdAt?: string;
  /** Last activity, for imported conversations (defaults to the creation time). */
  readonly updatedAt?: string;
  readonly events?: readonly ConversationEvent[];
  /** Further metadata fields. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Makes the new conversation a compaction review of this one (its review record). */
  readonly reviewOf?: string;
  /** Creates the conversation archived, archived at this time (for imports of archived ones). */
  readonly archivedAt?: string;
}

/** A conversation being created (`Store.stage`): nobody sees it until `commit`. */
export interface StagedConversation {
  readonly id: string;
  /** Writes events after those written before; an invalid event is refused, nothing written. */
  write(events: readonly ConversationEvent[]): void;
  /** Events written so far. */
  readonly eventCount: number;
  /**
   * Makes the conversation visible, all at once, its metadata counting the events written and
   * taking these fields over those `stage` was given. Refused when the id exists by now (then
   * nothing is left behind).
   */
  commit(final?: Pick<CreateOptions, "title" | "updatedAt" | "extra">): ConversationMeta;
  /** Removes what was written (after a failure); nothing once committed. */
  discard(): void;
}

export interface ListedConversation {
  readonly meta: ConversationMeta;
  readonly archived: boolean;
  /** Its review record, when it is a compaction review. */
  readonly review?: ReviewInfo;
}

/** How a compaction review ended: its proposal was applied, or it was aborted. */
export type ReviewOutcome = "applied" | "aborted";

/**
 * A compaction review's record (`review.json`): the conversation it reviews, and, once
 * `compact --continue` or `--abort` ended it, how and when.
 */
export interface ReviewInfo {
  readonly source: string;
  readonly outcome?: ReviewOutcome;
  readonly ended_at?: string;
  /** The compaction `--continue` appended to the source. */
  readonly compaction_id?: string;
}

export interface ConversationListing {
  readonly conversations: ListedConversation[];
  /** One sentence per conversation whose metadata could not be read (it is left out). */
  readonly warnings: string[];
}

/** A token counter that can also say what it already knows without counting. */
export interface CachingTokenCounter extends TokenCounter {
  /** The count of `text` if it is memoized or in the conversation's cache; never tokenizes. */
  readonly known: (text: string) => number | undefined;
}

/** Listing from metadata alone: what `cxc conversation ls` needs, and all it loads. */
export interface StoreListing {
  /** Metadata of live (or archived) conversations, newest activity first. */
  list(options?: { archived?: boolean }): ConversationListing;
  /** The active conversation of this session, if any. */
  active(): string | undefined;
  /**
   * The conversations this session made active, latest first: the active one and the one active
   * before it (jp's `?s` picker draws from them).
   */
  sessionHistory(): string[];
}

/** Everything that reads: what tools get, and what a read-only command needs. */
export interface StoreReader extends StoreListing {
  /** Whether conversation `id` exists, and whether it is archived. */
  locate(id: string): { readonly archived: boolean } | undefined;
  /** Ids of all conversations, live and archived. */
  ids(): { id: string; archived: boolean }[];
  /** A full id or any unique prefix of one → the id; `conversation-not-found` / `-ambiguous`. */
  resolveId(prefix: string): string;
  /** The explicit id (any unique prefix) or keyword (`active`, `.`, `recent`), else the session's active conversation. */
  resolveTarget(idOrPrefix: string | undefined): string;
  load(id: string): LoadedConversation;
  /** The metadata alone, without reading the log. */
  readMeta(id: string): ConversationMeta;
  /**
   * A token that changes whenever the conversation's log changes (undefined when it cannot be
   * told), so a caller can tell whether a conversation it loaded is still current.
   */
  revision(id: string): string | undefined;
  /** The conversation `id` reviews, when it is a compaction review (its review record). */
  reviewSource(id: string): string | undefined;
  /** The whole review record of `id` (source, and how it ended), when it is a compaction review. */
  reviewInfo(id: string): ReviewInfo | undefined;
  /** The live conversations that are compaction reviews, with their sources. */
  openReviews(): ReviewRecord[];
  /** What the compaction advisor remembers about conversation `id` (its advisor record). */
  advisorState(id: string): AdvisorState;
  /**
   * The o200k token counter; with an id, backed by that conversation's cache of counts (kept
   * across runs by the file store).
   */
  tokenCounter(id?: string): Promise<CachingTokenCounter>;
}

/**
 * A conversation held under its write lock: the one way to append to it. It is handed to the
 * action of `Store.locked` and is valid until that action ends; used after, it throws.
 */
export interface LockedConversation {
  readonly id: string;
  /** The conversation as stored now. */
  load(): LoadedConversation;
  /** Appends events and refreshes the counts in the metadata. */
  append(events: readonly ConversationEvent[], now?: string): ConversationMeta;
  /** Replaces the advisor record (atomically). */
  saveAdvisorState(state: AdvisorState): void;
  /** Replaces metadata fields (atomically), with the lock already held. */
  updateMeta(change: (meta: ConversationMeta) => ConversationMeta): ConversationMeta;
}

/** The whole store. */
export interface Store extends StoreReader {
  /** Creates a conversation with an optional initial list of events, all or nothing. */
  create(options?: CreateOptions): ConversationMeta;
  /**
   * Starts a conversation whose events are written a batch at a time (an import too large to
   * hold), invisible until it is committed; `create` is `stage`, one `write` and `commit`.
   */
  stage(options?: Omit<CreateOptions, "events">): StagedConversation;
  /** Runs `action` holding the conversation's write lock, with the conversation it may write. */
  locked<T>(
    id: string,
    command: string,
    action: (conversation: LockedConversation) => T | Promise<T>,
  ): Promise<T>;
  /** Takes the lock, appends, and releases it. */
  appendLocked(id: string, events: readonly ConversationEvent[], command: string): Promise<ConversationMeta>;
  /** Replaces metadata fields (atomically), under the lock. */
  updateMeta(
    id: string,
    change: (meta: ConversationMeta) => ConversationMeta,
    command: string,
  ): Promise<ConversationMeta>;
  /** Archives `id` (under its lock); archiving an archived conversation does nothing. */
  archive(id: string, now?: string): Promise<void>;
  /**
   * Ends compaction review `id` in one step under its lock: records the outcome (and the
   * compaction applied) in its review record, then archives it. The record is written first, so
   * a crash in between leaves a live review that says how it ended and a re-run finishes it.
   */
  endReview(
    id: string,
    ending: { readonly outcome: ReviewOutcome; readonly compactionId?: string },
    now?: string,
  ): Promise<void>;
  /** Unarchives `id` (under its lock); false when it was not archived. */
  unarchive(id: string): Promise<boolean>;
  /** Removes `id` and everything in it (under its lock); clears it as this session's active one. */
  remove(id: string): Promise<void>;
  setActive(id: string | undefined): void;
  /**
   * True the first time this store is asked for the one-time notice `name`, false ever after (a
   * line said once per store: docs/context.md's notice of the context figure). Never throws: a
   * store that cannot record it answers false, so nothing is said at all rather than said again.
   */
  claimNotice(name: string): boolean;
}
