/**
 * What the file store and the memory store share: the metadata bookkeeping of create and append,
 * id rules and prefix resolution, the open-review scan, and reading the review and advisor records
 * (with the fields older versions kept in `meta.json`, which are still read). Both stores extend
 * `StoreBase`, so the rules behind the port are written once.
 */
import type { AdvisorState } from "../compaction/core/advisor/advisor.js";
import { type ConversationEvent, isTurnEvent } from "../core/conversation/events.js";
import type { ReviewRecord } from "../compaction/core/review/open-reviews.js";
import { countTurns, TurnTally } from "../core/conversation/turns.js";
import { CxcError } from "../errors.js";
import { CONVERSATION_ID_PATTERN, newConversationId, timestampNow } from "./ids.js";
import type {
  CachingTokenCounter,
  ConversationListing,
  ConversationMeta,
  CreateOptions,
  LoadedConversation,
  LockedConversation,
  ReviewInfo,
  ReviewOutcome,
  StagedConversation,
  Store,
} from "./port.js";

import { endedReviewInfo } from "./review-record.js";

export { type ReviewFile, reviewInfoFrom, reviewSourceFrom } from "./review-record.js";

/** The id and metadata of a conversation about to be created; throws on a bad id. */
export function newConversationMeta(
  options: CreateOptions,
  tally: TurnTally = new TurnTally().add(options.events ?? []),
): ConversationMeta {
  const now = options.createdAt ?? timestampNow();
  const id = options.id ?? newConversationId();
  if (!CONVERSATION_ID_PATTERN.test(id)) throw new CxcError("usage", `invalid conversation id '${id}'`);
  return {
    ...(options.extra ?? {}),
    id,
    ...(options.title ? { title: options.title } : {}),
    created_at: now,
    updated_at: options.updatedAt ?? now,
    event_count: tally.turnEvents,
    turn_count: tally.turns,
    ...(options.archivedAt === undefined ? {} : { archived_at: options.archivedAt }),
  };
}

/** The metadata after `events` were appended at `now`. */
export function metaAfterAppend(
  meta: ConversationMeta,
  events: readonly ConversationEvent[],
  now: string,
): ConversationMeta {
  const previousEvents = meta.event_count ?? 0;
  const turnEvents = events.filter(isTurnEvent);
  const turnCount =
    previousEvents === 0
      ? countTurns(events)
      : (meta.turn_count ?? 0) + turnEvents.filter((event) => event.type === "turn_start").length;
  return { ...meta, updated_at: now, event_count: previousEvents + turnEvents.length, turn_count: turnCount };
}

export function alreadyExists(id: string): CxcError {
  return new CxcError("usage", `conversation ${id} already exists`);
}

export function notFound(id: string): CxcError {
  return new CxcError("conversation-not-found", `conversation ${id} does not exist`);
}

/**
 * The advisor state from an advisor record, else from `advisor` in the metadata (where versions
 * before the advisor record kept it). Fields of the wrong type are dropped.
 */
export function advisorStateFrom(record: unknown, meta: ConversationMeta | undefined): AdvisorState {
  const value = record ?? meta?.advisor;
  if (!isObject(value)) return {};
  const state: {
    last_announced?: AdvisorState["last_announced"];
    warned?: boolean;
    decision_usage?: AdvisorState["decision_usage"];
    compactions_seen?: number;
  } = {};
  if (
    value.last_announced === "silent" ||
    value.last_announced === "notice" ||
    value.last_announced === "recommend" ||
    value.last_announced === "request"
  ) {
    state.last_announced = value.last_announced;
  }
  if (typeof value.warned === "boolean") state.warned = value.warned;
  const seen = value.compactions_seen;
  if (typeof seen === "number" && Number.isInteger(seen) && seen >= 0) state.compactions_seen = seen;
  const usage = value.decision_usage;
  if (
    isObject(usage) &&
    [usage.calls, usage.input_tokens, usage.output_tokens].every(
      (count) => typeof count === "number" && Number.isInteger(count) && count >= 0,
    )
  ) {
    state.decision_usage = {
      calls: usage.calls as number,
      input_tokens: usage.input_tokens as number,
      output_tokens: usage.output_tokens as number,
    };
  }
  return state;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The parts of a store written once for both implementations. */
export abstract class StoreBase implements Store {
  abstract list(options?: { archived?: boolean }): ConversationListing;
  abstract active(): string | undefined;
  abstract sessionHistory(): string[];
  abstract locate(id: string): { readonly archived: boolean } | undefined;
  abstract ids(): { id: string; archived: boolean }[];
  abstract load(id: string): LoadedConversation;
  abstract readMeta(id: string): ConversationMeta;
  abstract revision(id: string): string | undefined;
  abstract reviewSource(id: string): string | undefined;
  abstract reviewInfo(id: string): ReviewInfo | undefined;
  abstract advisorState(id: string): AdvisorState;
  abstract tokenCounter(id?: string): Promise<CachingTokenCounter>;
  abstract stage(options?: Omit<CreateOptions, "events">): StagedConversation;
  /** Runs `action` holding the lock of `id` (the store's own kind of lock). */
  protected abstract withLock<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T>;
  /** Appends to `id`; only a `LockedConversation` calls it, under the lock. */
  protected abstract appendHeld(
    id: string,
    events: readonly ConversationEvent[],
    now: string,
  ): ConversationMeta;
  /** Replaces the advisor record of `id`; only a `LockedConversation` calls it, under the lock. */
  protected abstract saveAdvisorStateHeld(id: string, state: AdvisorState): void;
  /** The review record of `id`, which must exist (`not-found` otherwise); the caller holds its lock. */
  protected abstract reviewInfoHeld(id: string): ReviewInfo | undefined;
  /** Replaces the review record of `id`; the caller holds its lock. */
  protected abstract writeReviewHeld(id: string, info: ReviewInfo): void;
  /** Moves `id` to the archive (nothing when it is there already); the caller holds its lock. */
  protected abstract archiveHeld(id: string, now: string): void;
  abstract unarchive(id: string): Promise<boolean>;
  abstract remove(id: string): Promise<void>;
  abstract setActive(id: string | undefined): void;
  abstract claimNotice(name: string): boolean;
  /** The active conversation of every session, with when it became active when that is known. */
  abstract activations(): { id: string; at?: string }[];

  /** Replaces the metadata under the lock; `writeMeta` does the replacing. */
  protected abstract writeMeta(id: string, meta: ConversationMeta): void;

  /** The review source of live conversation `meta.id`, whose metadata is already at hand. */
  protected abstract reviewSourceOfListed(meta: ConversationMeta): string | undefined;

  async endReview(
    id: string,
    ending: { readonly outcome: ReviewOutcome; readonly compactionId?: string },
    now: string = timestampNow(),
  ): Promise<void> {
    await this.withLock(id, "cxc conversation compact", () => {
      const info = this.reviewInfoHeld(id);
      if (info === undefined) throw new CxcError("usage", `conversation ${id} is not a compaction review`);
      this.writeReviewHeld(id, endedReviewInfo(info, ending, now));
      this.archiveHeld(id, now);
    });
  }

  async archive(id: string, now: string = timestampNow()): Promise<void> {
    await this.withLock(id, "cxc conversation archive", () => this.archiveHeld(id, now));
  }

  create(options: CreateOptions = {}): ConversationMeta {
    const { events = [], ...rest } = options;
    const staged = this.stage(rest);
    try {
      staged.write(events);
      return staged.commit();
    } catch (error) {
      staged.discard();
      throw error;
    }
  }

  resolveId(prefix: string): string {
    const wanted = prefix.trim().toLowerCase();
    if (wanted === "") throw new CxcError("usage", "an empty conversation id was given");
    const all = this.ids();
    if (all.some((entry) => entry.id === wanted)) return wanted;
    const matches = all.filter((entry) => entry.id.startsWith(wanted));
    if (matches.length === 1) return matches[0]!.id;
    if (matches.length === 0) {
      throw new CxcError("conversation-not-found", `no conversation matches '${prefix}'`, {
        hint: "list conversations with `cxc conversation ls` (add --archived for archived ones)",
      });
    }
    const shown = matches.slice(0, 10).map((entry) => entry.id + (entry.archived ? " (archived)" : ""));
    throw new CxcError(
      "conversation-ambiguous",
      `'${prefix}' matches ${matches.length} conversations: ${shown.join(", ")}${matches.length > 10 ? ", …" : ""}`,
      {
        hint: "type more characters of the id",
      },
    );
  }

  /**
   * An id or unique prefix, or one of jp's keywords: `active` / `.` (this session's active
   * conversation) and `recent` (the live conversation used last in any session: the latest of
   * its last activity and its last activation). Keywords come first, as in jp. Undefined means
   * the active conversation.
   */
  resolveTarget(idOrPrefix: string | undefined): string {
    const keyword = idOrPrefix?.trim().toLowerCase();
    if (keyword === "recent") return this.#mostRecent();
    if (idOrPrefix !== undefined && keyword !== "active" && keyword !== ".")
      return this.resolveId(idOrPrefix);
    const active = this.active();
    if (active && this.locate(active)) return active;
    if (idOrPrefix !== undefined) {
      throw new CxcError(
        "no-active-conversation",
        `'${idOrPrefix}' names the active conversation, and none is active`,
        {
          hint: "make one active with `cxc conversation use ID`, or name it by id",
        },
      );
    }
    throw new CxcError("no-active-conversation", "no conversation given and none is active", {
      hint: "name one (`cxc conversation ls` lists them), or start one with `cxc conversation new`",
    });
  }

  #mostRecent(): string {
    const used = new Map<string, string>();
    for (const { meta } of this.list({ archived: false }).conversations) used.set(meta.id, meta.updated_at);
    for (const { id, at } of this.activations()) {
      const last = used.get(id);
      if (last !== undefined && at !== undefined && Date.parse(at) > Date.parse(last)) used.set(id, at);
    }
    let best: { id: string; at: number } | undefined;
    for (const [id, at] of used) {
      const time = Date.parse(at);
      if (best === undefined || time > best.at) best = { id, at: time };
    }
    if (best === undefined) {
      throw new CxcError(
        "conversation-not-found",
        "'recent' names the conversation used last, and there is none",
        {
          hint: "start one with `cxc conversation new` or `cxc q`",
        },
      );
    }
    return best.id;
  }

  /** Archived reviews never block, so only live conversations are read. */
  openReviews(): ReviewRecord[] {
    return this.list({ archived: false }).conversations.flatMap(({ meta }) => {
      const source = this.reviewSourceOfListed(meta);
      return source === undefined ? [] : [{ id: meta.id, archived: false, compactionSource: source }];
    });
  }

  async locked<T>(
    id: string,
    command: string,
    action: (conversation: LockedConversation) => T | Promise<T>,
  ): Promise<T> {
    return this.withLock(id, command, async () => {
      let held = true;
      const holding = (what: string): void => {
        if (!held) {
          throw new Error(
            `${what} on conversation ${id} after its lock was released; write only inside locked()`,
          );
        }
      };
      const conversation: LockedConversation = {
        id,
        load: () => this.load(id),
        append: (events, now = timestampNow()) => {
          holding("append");
          return this.appendHeld(id, events, now);
        },
        saveAdvisorState: (state) => {
          holding("saveAdvisorState");
          this.saveAdvisorStateHeld(id, state);
        },
        updateMeta: (change) => {
          holding("updateMeta");
          const updated = change(this.readMeta(id));
          this.writeMeta(id, updated);
          return updated;
        },
      };
      try {
        return await action(conversation);
      } finally {
        held = false;
      }
    });
  }

  async appendLocked(
    id: string,
    events: readonly ConversationEvent[],
    command: string,
  ): Promise<ConversationMeta> {
    return this.locked(id, command, (conversation) => conversation.append(events));
  }

  async updateMeta(
    id: string,
    change: (meta: ConversationMeta) => ConversationMeta,
    command: string,
  ): Promise<ConversationMeta> {
    return this.withLock(id, command, () => {
      const updated = change(this.readMeta(id));
      this.writeMeta(id, updated);
      return updated;
    });
  }
}
