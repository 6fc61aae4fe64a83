/**
 * The file-backed conversation store.
 *
 * Layout under the root (see paths.ts): `conversations/<id>/{events.jsonl,meta.json}` for live
 * conversations, `archive/<id>/` for archived ones (the location is the source of truth),
 * `sessions/<key>.json` for the active conversation of each session, `locks/<id>.lock`.
 *
 * Invariants: the log is only ever appended to; metadata is replaced atomically; every mutation
 * of a conversation happens under its lock; reads take no lock (an append in flight shows up as a
 * torn tail, which the reader sets aside).
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ConversationEvent } from "../core/events.js";
import { isTurnEvent } from "../core/events.js";
import { countTurns } from "../core/turns.js";
import { CxcError } from "../errors.js";
import { syncDirectory } from "./files.js";
import { CONVERSATION_ID_PATTERN, newConversationId, timestampNow } from "./ids.js";
import { defaultLockTimeout, withLock } from "./lock.js";
import { appendEvents, createLog, type LoadedLog, readLog, unreadable } from "./log.js";
import { type ConversationMeta, readMeta, withoutKey, writeMeta } from "./meta.js";
import {
  archiveDirectory,
  conversationsDirectory,
  type Environment,
  resolveStoreLocation,
  type StoreLocation,
} from "./paths.js";
import { readActive, writeActive } from "./session.js";
import { type ConversationListing, listConversations, listDirectory as listEntries } from "./listing.js";

export interface LoadedConversation extends LoadedLog {
  readonly meta: ConversationMeta;
  readonly archived: boolean;
  readonly directory: string;
}

export interface CreateOptions {
  readonly title?: string;
  readonly id?: string;
  readonly createdAt?: string;
  /** Last activity, for imported conversations (defaults to the creation time). */
  readonly updatedAt?: string;
  readonly events?: readonly ConversationEvent[];
  readonly extra?: Readonly<Record<string, unknown>>;
}

export type { ListedConversation } from "./listing.js";

export class ConversationStore {
  readonly location: StoreLocation;
  readonly env: Environment;

  constructor(location: StoreLocation, env: Environment) {
    this.location = location;
    this.env = env;
  }

  static open(cwd: string, env: Environment): ConversationStore {
    return new ConversationStore(resolveStoreLocation(cwd, env), env);
  }

  get root(): string {
    return this.location.root;
  }

  /** Creates a conversation with an optional initial list of events. */
  create(options: CreateOptions = {}): ConversationMeta {
    const now = options.createdAt ?? timestampNow();
    const id = options.id ?? newConversationId();
    if (!CONVERSATION_ID_PATTERN.test(id)) throw new CxcError("usage", `invalid conversation id '${id}'`);
    if (this.locate(id)) throw new CxcError("usage", `conversation ${id} already exists`);
    const parent = conversationsDirectory(this.root);
    const events = options.events ?? [];
    const meta: ConversationMeta = {
      ...(options.extra ?? {}),
      id,
      ...(options.title ? { title: options.title } : {}),
      created_at: now,
      updated_at: options.updatedAt ?? now,
      event_count: events.filter(isTurnEvent).length,
      turn_count: countTurns(events),
    };
    // Built in a hidden staging directory, then renamed into place: a crash mid-create leaves only
    // hidden debris (listings skip dot-names), never a conversation without its log or metadata,
    // and rename refuses a non-empty target, so two creators of one id cannot both succeed.
    const staging = join(parent, `.creating-${id}-${process.pid}`);
    try {
      rmSync(staging, { recursive: true, force: true }); // debris of an earlier process with our pid
      mkdirSync(staging, { recursive: true });
    } catch (error) {
      throw unreadable(staging, error);
    }
    try {
      createLog(staging, id, now, events);
      writeMeta(staging, meta);
      renameSync(staging, join(parent, id));
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") {
        throw new CxcError("usage", `conversation ${id} already exists`);
      }
      throw error;
    }
    syncDirectory(parent);
    return meta;
  }

  /** The directory of conversation `id` and whether it is archived, or undefined. */
  locate(id: string): { directory: string; archived: boolean } | undefined {
    const live = join(conversationsDirectory(this.root), id);
    if (existsSync(live)) return { directory: live, archived: false };
    const archived = join(archiveDirectory(this.root), id);
    if (existsSync(archived)) return { directory: archived, archived: true };
    return undefined;
  }

  /** Ids of all conversations, live and archived. */
  ids(): { id: string; archived: boolean }[] {
    return [
      ...listDirectory(conversationsDirectory(this.root)).map((id) => ({ id, archived: false })),
      ...listDirectory(archiveDirectory(this.root)).map((id) => ({ id, archived: true })),
    ];
  }

  /** Metadata of live (or archived) conversations, newest activity first. */
  list(options: { archived?: boolean } = {}): ConversationListing {
    try {
      return listConversations(this.root, options);
    } catch (error) {
      throw unreadable(
        options.archived ? archiveDirectory(this.root) : conversationsDirectory(this.root),
        error,
      );
    }
  }

  /** Resolves a full id or any unique prefix of one. */
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

  /** The explicit id (any unique prefix), else the session's active conversation. */
  resolveTarget(idOrPrefix: string | undefined): string {
    if (idOrPrefix !== undefined) return this.resolveId(idOrPrefix);
    const active = this.active();
    if (active && this.locate(active)) return active;
    throw new CxcError("no-active-conversation", "no conversation given and none is active", {
      hint: "name one (`cxc conversation ls` lists them), or start one with `cxc conversation new`",
    });
  }

  load(id: string): LoadedConversation {
    const found = this.locate(id);
    if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
    const log = readLog(found.directory);
    const meta = readMeta(found.directory);
    return { ...log, meta, archived: found.archived, directory: found.directory };
  }

  /** Runs `action` holding the conversation's write lock. */
  async locked<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T> {
    return withLock(this.root, id, { command, timeoutMs: defaultLockTimeout(this.env) }, action);
  }

  /**
   * Appends events and refreshes the cached counts in the metadata. The caller must hold the lock
   * (use `locked`); `appendLocked` does both.
   */
  append(id: string, events: readonly ConversationEvent[], now: string = timestampNow()): ConversationMeta {
    const found = this.locate(id);
    if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
    appendEvents(found.directory, events);
    const meta = readMeta(found.directory);
    const previousEvents = meta.event_count ?? 0;
    const turnEvents = events.filter(isTurnEvent);
    const turnCount =
      previousEvents === 0
        ? countTurns(events)
        : (meta.turn_count ?? 0) + turnEvents.filter((event) => event.type === "turn_start").length;
    const updated: ConversationMeta = {
      ...meta,
      updated_at: now,
      event_count: previousEvents + turnEvents.length,
      turn_count: turnCount,
    };
    writeMeta(found.directory, updated);
    return updated;
  }

  async appendLocked(
    id: string,
    events: readonly ConversationEvent[],
    command: string,
  ): Promise<ConversationMeta> {
    return this.locked(id, command, () => this.append(id, events));
  }

  /** Replaces metadata fields (atomically). Holds the lock. */
  async updateMeta(
    id: string,
    change: (meta: ConversationMeta) => ConversationMeta,
    command: string,
  ): Promise<ConversationMeta> {
    return this.locked(id, command, () => {
      const found = this.locate(id);
      if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      const updated = change(readMeta(found.directory));
      writeMeta(found.directory, updated);
      return updated;
    });
  }

  async archive(id: string, now: string = timestampNow()): Promise<void> {
    await this.locked(id, "cxc conversation archive", () => {
      const found = this.locate(id);
      if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      if (found.archived) return;
      writeMeta(found.directory, { ...readMeta(found.directory), archived_at: now });
      mkdirSync(archiveDirectory(this.root), { recursive: true });
      renameSync(found.directory, join(archiveDirectory(this.root), id));
      syncDirectory(conversationsDirectory(this.root));
      syncDirectory(archiveDirectory(this.root));
    });
  }

  async unarchive(id: string): Promise<boolean> {
    return this.locked(id, "cxc conversation unarchive", () => {
      const found = this.locate(id);
      if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      if (!found.archived) return false;
      writeMeta(found.directory, withoutKey(readMeta(found.directory), "archived_at"));
      mkdirSync(conversationsDirectory(this.root), { recursive: true });
      renameSync(found.directory, join(conversationsDirectory(this.root), id));
      syncDirectory(archiveDirectory(this.root));
      syncDirectory(conversationsDirectory(this.root));
      return true;
    });
  }

  async remove(id: string): Promise<void> {
    await this.locked(id, "cxc conversation rm", () => {
      const found = this.locate(id);
      if (!found) throw new CxcError("conversation-not-found", `conversation ${id} does not exist`);
      // Rename first so a crash mid-delete never leaves a half-removed conversation that looks live.
      const trash = join(this.root, `.trash-${id}-${process.pid}`);
      renameSync(found.directory, trash);
      syncDirectory(dirname(found.directory));
      rmSync(trash, { recursive: true, force: true });
    });
    if (this.active() === id) writeActive(this.root, this.env, undefined);
  }

  /** The active conversation of this session (`CXC_SESSION`, else the workspace default). */
  active(): string | undefined {
    return readActive(this.root, this.env);
  }

  setActive(id: string | undefined): void {
    writeActive(this.root, this.env, id);
  }
}

function listDirectory(directory: string): string[] {
  try {
    return listEntries(directory);
  } catch (error) {
    throw unreadable(directory, error);
  }
}
