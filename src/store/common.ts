/**
 * What the file store and the memory store share: the metadata bookkeeping of create and append,
 * id rules and prefix resolution, the open-review scan, and reading the review and advisor records
 * (with the fields older versions kept in `meta.json`, which are still read). Both stores extend
 * `StoreBase`, so the rules behind the port are written once.
 */
import type { AdvisorState } from "../core/advisor.js";
import { type ConversationEvent, isTurnEvent } from "../core/events.js";
import type { ReviewRecord } from "../core/open-reviews.js";
import { countTurns, TurnTally } from "../core/turns.js";
import { CxcError } from "../errors.js";
import { CONVERSATION_ID_PATTERN, newConversationId, timestampNow } from "./ids.js";
import type {
  CachingTokenCounter,
  ConversationListing,
  ConversationMeta,
  CreateOptions,
  LoadedConversation,
  StagedConversation,
  Store,
} from "./port.js";

/** The review record (`review.json`): which conversation a compaction review reviews. */
export interface ReviewFile {
  readonly source: string;
}

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
 * The advisor state from an advisor record, else from `advisor` in the metadata (where versions
 * before the advisor record kept it). Fields of the wrong type are dropped.
 */
export function advisorStateFrom(record: unknown, meta: ConversationMeta | undefined): AdvisorState {
  const value = record ?? meta?.advisor;
  if (!isObject(value)) return {};
  const state: { last_announced?: AdvisorState["last_announced"]; warned?: boolean } = {};
  if (
    value.last_announced === "silent" ||
    value.last_announced === "notice" ||
    value.last_announced === "recommend" ||
    value.last_announced === "request"
  ) {
    state.last_announced = value.last_announced;
  }
  if (typeof value.warned === "boolean") state.warned = value.warned;
  return state;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The parts of a store written once for both implementations. */
export abstract class StoreBase implements Store {
  abstract list(options?: { archived?: boolean }): ConversationListing;
  abstract active(): string | undefined;
  abstract locate(id: string): { readonly archived: boolean } | undefined;
  abstract ids(): { id: string; archived: boolean }[];
  abstract load(id: string): LoadedConversation;
  abstract readMeta(id: string): ConversationMeta;
  abstract revision(id: string): string | undefined;
  abstract reviewSource(id: string): string | undefined;
  abstract advisorState(id: string): AdvisorState;
  abstract tokenCounter(id?: string): Promise<CachingTokenCounter>;
  abstract stage(options?: Omit<CreateOptions, "events">): StagedConversation;
  abstract locked<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T>;
  abstract append(id: string, events: readonly ConversationEvent[], now?: string): ConversationMeta;
  abstract saveAdvisorState(id: string, state: AdvisorState): void;
  abstract archive(id: string, now?: string): Promise<void>;
  abstract unarchive(id: string): Promise<boolean>;
  abstract remove(id: string): Promise<void>;
  abstract setActive(id: string | undefined): void;

  /** Replaces the metadata under the lock; `writeMeta` does the replacing. */
  protected abstract writeMeta(id: string, meta: ConversationMeta): void;

  /** The review source of live conversation `meta.id`, whose metadata is already at hand. */
  protected abstract reviewSourceOfListed(meta: ConversationMeta): string | undefined;

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

  resolveTarget(idOrPrefix: string | undefined): string {
    if (idOrPrefix !== undefined) return this.resolveId(idOrPrefix);
    const active = this.active();
    if (active && this.locate(active)) return active;
    throw new CxcError("no-active-conversation", "no conversation given and none is active", {
      hint: "name one (`cxc conversation ls` lists them), or start one with `cxc conversation new`",
    });
  }

  /** Archived reviews never block, so only live conversations are read. */
  openReviews(): ReviewRecord[] {
    return this.list({ archived: false }).conversations.flatMap(({ meta }) => {
      const source = this.reviewSourceOfListed(meta);
      return source === undefined ? [] : [{ id: meta.id, archived: false, compactionSource: source }];
    });
  }

  async appendLocked(
    id: string,
    events: readonly ConversationEvent[],
    command: string,
  ): Promise<ConversationMeta> {
    return this.locked(id, command, () => this.append(id, events));
  }

  async updateMeta(
    id: string,
    change: (meta: ConversationMeta) => ConversationMeta,
    command: string,
  ): Promise<ConversationMeta> {
    return this.locked(id, command, () => {
      const updated = change(this.readMeta(id));
      this.writeMeta(id, updated);
      return updated;
    });
  }
}
