/**
 * The store in memory: the same port and the same promises as the file store (port.ts), for
 * tests of the shell that need a store but no directory. test/store/contract.test.ts holds both to
 * one suite.
 *
 * Events are kept as the canonical lines the file store would write (validated on the way in, so
 * an invalid event fails the same way) and parsed again on every load, so a caller never shares
 * an object with the store. Locks are per conversation and per store data: a second holder waits
 * for the lock timeout, then fails with `lock-timeout`, as with lock files. Stores made with
 * `sharing` see the same conversations under their own session, like two processes with
 * different `CXC_SESSION`s.
 */
import type { AdvisorState } from "../compaction/core/advisor/advisor.js";
import { type ConversationEvent, LOG_FORMAT_VERSION, parseEvent } from "../core/conversation/events.js";
import { TurnTally } from "../core/conversation/turns.js";
import { CxcError } from "../errors.js";
import {
  advisorStateFrom,
  alreadyExists,
  metaAfterAppend,
  newConversationMeta,
  notFound,
  reviewInfoFrom,
  reviewSourceFrom,
  StoreBase,
} from "./common.js";
import { timestampNow } from "./ids.js";
import { defaultLockTimeout } from "./lock.js";
import { serializeLines } from "./log.js";
import { withoutKey } from "./meta.js";
import type {
  CachingTokenCounter,
  ConversationListing,
  ConversationMeta,
  CreateOptions,
  Environment,
  LoadedConversation,
  LogHeader,
  ReviewInfo,
  StagedConversation,
  Store,
} from "./port.js";
import { historyOf, nextSession, type SessionFile, sessionKey } from "./session.js";
import { type CountCache, loadTokenCounter } from "./token-counter.js";

interface StoredConversation {
  readonly header: LogHeader;
  /** Canonical JSON lines, one per event. */
  readonly lines: string[];
  meta: ConversationMeta;
  archived: boolean;
  review?: ReviewInfo;
  advisor?: AdvisorState;
  readonly counts: CountCache;
  /** Bumped by every append. */
  revision: number;
}

/** Everything stores made with `sharing` have in common. */
class MemoryData {
  readonly conversations = new Map<string, StoredConversation>();
  readonly sessions = new Map<string, SessionFile>();
  readonly locks = new Map<string, { readonly command: string; readonly waiters: (() => void)[] }>();
  readonly notices = new Set<string>();
}

export interface MemoryStoreOptions {
  /** `CXC_SESSION` picks the session; `CXC_LOCK_TIMEOUT_MS` the lock timeout. */
  readonly env?: Environment;
  /** Another memory store whose conversations, sessions and locks this one shares. */
  readonly sharing?: Store;
}

export class MemoryStore extends StoreBase {
  readonly #data: MemoryData;
  readonly #env: Environment;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    if (options.sharing !== undefined && !(options.sharing instanceof MemoryStore)) {
      throw new TypeError("a memory store can share only another memory store's data");
    }
    this.#data = options.sharing === undefined ? new MemoryData() : options.sharing.#data;
    this.#env = options.env ?? {};
  }

  stage(options: Omit<CreateOptions, "events"> = {}): StagedConversation {
    const start = newConversationMeta(options);
    const { id } = start;
    if (this.#data.conversations.has(id)) throw alreadyExists(id);
    const lines: string[] = [];
    const tally = new TurnTally();
    let open = true;
    const refuseClosed = (): void => {
      if (!open) throw new CxcError("internal", `conversation ${id} is no longer being written`);
    };
    return {
      id,
      get eventCount() {
        return lines.length;
      },
      write: (events) => {
        refuseClosed();
        // Everything that can fail happens before the conversation appears.
        lines.push(...linesOf(events));
        tally.add(events);
      },
      commit: (final = {}) => {
        refuseClosed();
        open = false;
        if (this.#data.conversations.has(id)) throw alreadyExists(id);
        const meta = newConversationMeta({ ...options, ...final, id, createdAt: start.created_at }, tally);
        this.#data.conversations.set(id, {
          header: { cxc: "conversation-log", version: LOG_FORMAT_VERSION, id, created_at: meta.created_at },
          lines,
          meta,
          archived: options.archivedAt !== undefined,
          ...(options.reviewOf === undefined ? {} : { review: { source: options.reviewOf } }),
          counts: { counts: new Map(), changed: false },
          revision: 0,
        });
        return meta;
      },
      discard: () => {
        open = false;
      },
    };
  }

  locate(id: string): { readonly archived: boolean } | undefined {
    const found = this.#data.conversations.get(id);
    return found === undefined ? undefined : { archived: found.archived };
  }

  ids(): { id: string; archived: boolean }[] {
    const all = [...this.#data.conversations.entries()].map(([id, { archived }]) => ({ id, archived }));
    return [...all.filter((entry) => !entry.archived), ...all.filter((entry) => entry.archived)];
  }

  list(options: { archived?: boolean } = {}): ConversationListing {
    const archived = options.archived ?? false;
    const conversations = [...this.#data.conversations.values()]
      .filter((conversation) => conversation.archived === archived)
      .map((conversation) => {
        const review = reviewInfoFrom(conversation.review, conversation.meta);
        return { meta: { ...conversation.meta }, archived, ...(review === undefined ? {} : { review }) };
      })
      .sort((a, b) =>
        a.meta.updated_at < b.meta.updated_at ? 1 : a.meta.updated_at > b.meta.updated_at ? -1 : 0,
      );
    return { conversations, warnings: [] };
  }

  load(id: string): LoadedConversation {
    const found = this.#found(id);
    const events = found.lines.map((line) => {
      const parsed = parseEvent(JSON.parse(line));
      if (!parsed.ok) throw new CxcError("internal", `a stored event no longer parses: ${parsed.error}`);
      return parsed.event;
    });
    return { header: found.header, events, warnings: [], meta: { ...found.meta }, archived: found.archived };
  }

  readMeta(id: string): ConversationMeta {
    return { ...this.#found(id).meta };
  }

  revision(id: string): string | undefined {
    const found = this.#data.conversations.get(id);
    return found === undefined ? undefined : String(found.revision);
  }

  reviewSource(id: string): string | undefined {
    const found = this.#data.conversations.get(id);
    return found === undefined ? undefined : reviewSourceFrom(found.review, found.meta);
  }

  reviewInfo(id: string): ReviewInfo | undefined {
    const found = this.#data.conversations.get(id);
    return found === undefined ? undefined : reviewInfoFrom(found.review, found.meta);
  }

  protected reviewInfoHeld(id: string): ReviewInfo | undefined {
    const found = this.#found(id);
    return reviewInfoFrom(found.review, found.meta);
  }

  protected writeReviewHeld(id: string, info: ReviewInfo): void {
    this.#found(id).review = info;
  }

  protected reviewSourceOfListed(meta: ConversationMeta): string | undefined {
    return this.reviewSource(meta.id);
  }

  advisorState(id: string): AdvisorState {
    const found = this.#found(id);
    return advisorStateFrom(found.advisor, found.advisor === undefined ? found.meta : undefined);
  }

  protected saveAdvisorStateHeld(id: string, state: AdvisorState): void {
    this.#found(id).advisor = { ...state };
  }

  async tokenCounter(id?: string): Promise<CachingTokenCounter> {
    return loadTokenCounter(id === undefined ? {} : { cache: this.#found(id).counts });
  }

  protected async withLock<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T> {
    await this.#acquire(id, command);
    try {
      return await action();
    } finally {
      this.#release(id);
    }
  }

  protected appendHeld(id: string, events: readonly ConversationEvent[], now: string): ConversationMeta {
    const found = this.#found(id);
    if (events.length > 0) {
      found.lines.push(...linesOf(events));
      found.revision += 1;
    }
    found.meta = metaAfterAppend(found.meta, events, now);
    return { ...found.meta };
  }

  protected writeMeta(id: string, meta: ConversationMeta): void {
    this.#found(id).meta = { ...meta };
  }

  protected archiveHeld(id: string, now: string): void {
    const found = this.#found(id);
    if (found.archived) return;
    found.meta = { ...found.meta, archived_at: now };
    found.archived = true;
  }

  async unarchive(id: string): Promise<boolean> {
    return this.withLock(id, "cxc conversation unarchive", () => {
      const found = this.#found(id);
      if (!found.archived) return false;
      found.meta = withoutKey(found.meta, "archived_at");
      found.archived = false;
      return true;
    });
  }

  async remove(id: string): Promise<void> {
    await this.withLock(id, "cxc conversation rm", () => {
      this.#found(id);
      this.#data.conversations.delete(id);
    });
    if (this.active() === id) this.setActive(undefined);
  }

  active(): string | undefined {
    return this.#data.sessions.get(sessionKey(this.#env))?.active;
  }

  claimNotice(name: string): boolean {
    if (this.#data.notices.has(name)) return false;
    this.#data.notices.add(name);
    return true;
  }

  setActive(id: string | undefined): void {
    const key = sessionKey(this.#env);
    this.#data.sessions.set(key, nextSession(this.#data.sessions.get(key) ?? {}, id, timestampNow()));
  }

  sessionHistory(): string[] {
    const session = this.#data.sessions.get(sessionKey(this.#env)) ?? {};
    return historyOf(session);
  }

  activations(): { id: string; at?: string }[] {
    return [...this.#data.sessions.values()].flatMap((session) =>
      session.active === undefined
        ? []
        : [
            session.activated_at === undefined
              ? { id: session.active }
              : { id: session.active, at: session.activated_at },
          ],
    );
  }

  #found(id: string): StoredConversation {
    const found = this.#data.conversations.get(id);
    if (found === undefined) throw notFound(id);
    return found;
  }

  /** Takes the lock of `id`, waiting in line up to the lock timeout. */
  async #acquire(id: string, command: string): Promise<void> {
    const held = this.#data.locks.get(id);
    if (held === undefined) {
      this.#data.locks.set(id, { command, waiters: [] });
      return;
    }
    const timeoutMs = defaultLockTimeout(this.#env);
    await new Promise<void>((resolve, reject) => {
      const waiter = (): void => {
        clearTimeout(timer);
        this.#data.locks.set(id, { command, waiters: held.waiters });
        resolve();
      };
      const timer = setTimeout(() => {
        held.waiters.splice(held.waiters.indexOf(waiter), 1);
        const holder = this.#data.locks.get(id)?.command ?? "another caller";
        reject(
          new CxcError("lock-timeout", `conversation ${id} is locked by ${holder} (in this process)`, {
            hint: "wait for it to finish and try again",
          }),
        );
      }, timeoutMs);
      held.waiters.push(waiter);
    });
  }

  #release(id: string): void {
    const held = this.#data.locks.get(id);
    if (held === undefined) return;
    const next = held.waiters.shift();
    if (next === undefined) this.#data.locks.delete(id);
    else next();
  }
}

/** The canonical lines of `events`; an invalid event is refused before anything is stored. */
function linesOf(events: readonly ConversationEvent[]): string[] {
  const text = serializeLines(events);
  return text === "" ? [] : text.slice(0, -1).split("\n");
}
