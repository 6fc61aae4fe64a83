/**
 * The file-backed store (the port is port.ts).
 *
 * Layout under the root (see paths.ts): `conversations/<id>/` for live conversations (the log
 * `events.jsonl`, `meta.json`, and `review.json` / `advisor.json` when the conversation has those
 * records), `archive/<id>/` for archived ones (the location is the source of truth),
 * `sessions/<key>.json` for the active conversation of each session, `locks/<id>.lock`.
 *
 * Invariants: the log is only ever appended to; metadata and records are replaced atomically;
 * every mutation of a conversation happens under its lock; reads take no lock (an append in
 * flight shows up as a torn tail, which the reader sets aside).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AdvisorState } from "../compaction/core/advisor/advisor.js";
import type { ConversationEvent } from "../core/conversation/events.js";
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
import { isDebrisName, sweepDebris } from "./debris.js";
import { createFileAtomic, ensureDirectory, syncDirectory, unreadable } from "./files.js";
import { timestampNow } from "./ids.js";
import { listConversations, listDirectory as listEntries } from "./listing.js";
import { defaultLockTimeout, withLock } from "./lock.js";
import { appendEvents, readLog, StagedLog } from "./log.js";
import {
  readAdvisorRecord,
  readMeta,
  readReviewRecord,
  withoutKey,
  writeAdvisorRecord,
  writeMeta,
  writeReviewRecord,
} from "./meta.js";
import { archiveDirectory, conversationsDirectory, EVENTS_FILE, resolveStoreLocation } from "./paths.js";
import type {
  CachingTokenCounter,
  ConversationListing,
  ConversationMeta,
  CreateOptions,
  Environment,
  LoadedConversation,
  ReviewInfo,
  StagedConversation,
  StoreLocation,
} from "./port.js";
import { readActivations, readActive, readSessionHistory, writeActive } from "./session.js";
import { loadTokenCounter } from "./token-counter.js";

/** A loaded conversation and the directory it was read from. */
export interface LoadedFromFiles extends LoadedConversation {
  readonly directory: string;
}

let stagingCounter = 0;

export class ConversationStore extends StoreBase {
  readonly location: StoreLocation;
  readonly env: Environment;
  #swept = false;

  constructor(location: StoreLocation, env: Environment) {
    super();
    this.location = location;
    this.env = env;
  }

  static open(cwd: string, env: Environment): ConversationStore {
    return new ConversationStore(resolveStoreLocation(cwd, env), env);
  }

  get root(): string {
    return this.location.root;
  }

  /**
   * Built in a hidden staging directory, then renamed into place: a crash mid-create leaves only
   * hidden debris (listings skip dot-names, debris.ts sweeps it), never a conversation without
   * its log or metadata, and rename refuses a non-empty target, so two creators of one id cannot
   * both succeed. The log is written as events come and made durable once, at the commit.
   */
  stage(options: Omit<CreateOptions, "events"> = {}): StagedConversation {
    const start = newConversationMeta(options);
    const { id } = start;
    if (this.locate(id)) throw alreadyExists(id);
    const parent = conversationsDirectory(this.root);
    this.#sweepDebris();
    // One name per staging in this process, so two stagings of one id never share a directory.
    stagingCounter += 1;
    const staging = join(parent, `.creating-${id}-${stagingCounter}-${process.pid}`);
    let log: StagedLog;
    try {
      rmSync(staging, { recursive: true, force: true }); // debris of an earlier process with our pid
      mkdirSync(staging, { recursive: true });
      log = new StagedLog(staging, id, start.created_at);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error instanceof CxcError ? error : unreadable(staging, error);
    }
    // An archived conversation is born in the archive: a crash can never leave it live.
    const destination = options.archivedAt === undefined ? parent : archiveDirectory(this.root);
    const tally = new TurnTally();
    let state: "open" | "committed" | "discarded" = "open";
    const discard = (): void => {
      if (state !== "open") return;
      state = "discarded";
      log.close();
      rmSync(staging, { recursive: true, force: true });
    };
    return {
      id,
      get eventCount() {
        return log.events;
      },
      write: (events) => {
        if (state !== "open") throw new CxcError("internal", `conversation ${id} is no longer being written`);
        log.write(events);
        tally.add(events);
      },
      commit: (final = {}) => {
        if (state !== "open") throw new CxcError("internal", `conversation ${id} is no longer being written`);
        const meta = newConversationMeta({ ...options, ...final, id, createdAt: start.created_at }, tally);
        try {
          log.finish();
          writeMeta(staging, meta);
          if (options.reviewOf !== undefined) writeReviewRecord(staging, { source: options.reviewOf });
          if (destination !== parent) mkdirSync(destination, { recursive: true });
          renameSync(staging, join(destination, id));
        } catch (error) {
          discard();
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOTEMPTY" || code === "EEXIST") throw alreadyExists(id);
          throw error;
        }
        state = "committed";
        syncDirectory(destination);
        if (destination !== parent) syncDirectory(parent);
        return meta;
      },
      discard,
    };
  }

  /**
   * The directory of conversation `id` and whether it is archived, or undefined. Readers take no
   * lock, so the conversation may move (archive, unarchive) between two looks; a conversation
   * that moved is looked for again rather than reported missing.
   */
  locate(id: string): { directory: string; archived: boolean } | undefined {
    const live = join(conversationsDirectory(this.root), id);
    const archived = join(archiveDirectory(this.root), id);
    for (let look = 0; look < MOVE_RETRIES; look++) {
      if (existsSync(live)) return { directory: live, archived: false };
      if (existsSync(archived)) return { directory: archived, archived: true };
    }
    return undefined;
  }

  /** Ids of all conversations; the live directory is read again last, to catch one unarchived meanwhile. */
  ids(): { id: string; archived: boolean }[] {
    const seen = new Map<string, boolean>();
    const add = (ids: readonly string[], archived: boolean): void => {
      for (const id of ids) if (!seen.has(id)) seen.set(id, archived);
    };
    add(listDirectory(conversationsDirectory(this.root)), false);
    add(listDirectory(archiveDirectory(this.root)), true);
    add(listDirectory(conversationsDirectory(this.root)), false);
    const all = [...seen].map(([id, archived]) => ({ id, archived }));
    return [...all.filter((entry) => !entry.archived), ...all.filter((entry) => entry.archived)];
  }

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

  load(id: string): LoadedFromFiles {
    return this.#read(id, (found) => {
      const log = readLog(found.directory);
      const meta = readMeta(found.directory);
      return { ...log, meta, archived: found.archived, directory: found.directory };
    });
  }

  readMeta(id: string): ConversationMeta {
    return this.#read(id, (found) => readMeta(found.directory));
  }

  /** The log's size and modification time: any append changes them. */
  revision(id: string): string | undefined {
    const found = this.locate(id);
    if (found === undefined) return undefined;
    try {
      const stat = statSync(join(found.directory, EVENTS_FILE));
      return `${stat.size}:${stat.mtimeMs}`;
    } catch {
      return undefined;
    }
  }

  reviewSource(id: string): string | undefined {
    if (this.locate(id) === undefined) return undefined;
    return this.#read(id, (found) => {
      const record = readReviewRecord(found.directory);
      return reviewSourceFrom(record, record === undefined ? readMeta(found.directory) : undefined);
    });
  }

  reviewInfo(id: string): ReviewInfo | undefined {
    const found = this.locate(id);
    if (found === undefined) return undefined;
    const record = readReviewRecord(found.directory);
    return reviewInfoFrom(record, record === undefined ? readMeta(found.directory) : undefined);
  }

  protected reviewInfoHeld(id: string): ReviewInfo | undefined {
    const { directory } = this.#found(id);
    const record = readReviewRecord(directory);
    return reviewInfoFrom(record, record === undefined ? readMeta(directory) : undefined);
  }

  protected writeReviewHeld(id: string, info: ReviewInfo): void {
    writeReviewRecord(this.#found(id).directory, info);
  }

  protected reviewSourceOfListed(meta: ConversationMeta): string | undefined {
    return reviewSourceFrom(readReviewRecord(join(conversationsDirectory(this.root), meta.id)), meta);
  }

  advisorState(id: string): AdvisorState {
    return this.#read(id, (found) => {
      const record = readAdvisorRecord(found.directory);
      return advisorStateFrom(record, record === undefined ? readMeta(found.directory) : undefined);
    });
  }

  protected saveAdvisorStateHeld(id: string, state: AdvisorState): void {
    writeAdvisorRecord(this.#found(id).directory, state);
  }

  async tokenCounter(id?: string): Promise<CachingTokenCounter> {
    const cacheDirectory = id === undefined ? undefined : this.#found(id).directory;
    return loadTokenCounter(cacheDirectory === undefined ? {} : { cacheDirectory });
  }

  protected async withLock<T>(id: string, command: string, action: () => T | Promise<T>): Promise<T> {
    return withLock(this.root, id, { command, timeoutMs: defaultLockTimeout(this.env) }, action);
  }

  protected appendHeld(id: string, events: readonly ConversationEvent[], now: string): ConversationMeta {
    const found = this.#found(id);
    appendEvents(found.directory, events);
    const updated = metaAfterAppend(readMeta(found.directory), events, now);
    writeMeta(found.directory, updated);
    return updated;
  }

  protected writeMeta(id: string, meta: ConversationMeta): void {
    writeMeta(this.#found(id).directory, meta);
  }

  protected archiveHeld(id: string, now: string): void {
    const found = this.#found(id);
    if (found.archived) return;
    writeMeta(found.directory, { ...readMeta(found.directory), archived_at: now });
    mkdirSync(archiveDirectory(this.root), { recursive: true });
    renameSync(found.directory, join(archiveDirectory(this.root), id));
    syncDirectory(conversationsDirectory(this.root));
    syncDirectory(archiveDirectory(this.root));
  }

  async unarchive(id: string): Promise<boolean> {
    return this.withLock(id, "cxc conversation unarchive", () => {
      const found = this.#found(id);
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
    await this.withLock(id, "cxc conversation rm", () => {
      const found = this.#found(id);
      // Rename first so a crash mid-delete never leaves a half-removed conversation that looks live.
      const trash = join(this.root, `.trash-${id}-${process.pid}`);
      renameSync(found.directory, trash);
      syncDirectory(dirname(found.directory));
      rmSync(trash, { recursive: true, force: true });
    });
    if (this.active() === id) writeActive(this.root, this.env, undefined, timestampNow());
  }

  /** The active conversation of this session (`CXC_SESSION`, else the workspace default). */
  active(): string | undefined {
    return readActive(this.root, this.env);
  }

  setActive(id: string | undefined): void {
    writeActive(this.root, this.env, id, timestampNow());
  }

  claimNotice(name: string): boolean {
    // A marker file per notice, created only when absent: two processes cannot both claim it.
    const directory = join(this.root, "notices");
    try {
      ensureDirectory(directory);
      createFileAtomic(join(directory, name.replace(/[^A-Za-z0-9._-]/g, "_")), `${timestampNow()}\n`);
      return true;
    } catch {
      return false;
    }
  }

  sessionHistory(): string[] {
    return readSessionHistory(this.root, this.env);
  }

  activations(): { id: string; at?: string }[] {
    return readActivations(this.root);
  }

  /** Removes what crashed creates and removals left (debris.ts), once per store. */
  #sweepDebris(): void {
    if (this.#swept) return;
    this.#swept = true;
    for (const directory of [conversationsDirectory(this.root), this.root]) {
      let names: string[];
      try {
        names = readdirSync(directory).filter(isDebrisName);
      } catch {
        continue; // Not created yet.
      }
      sweepDebris(directory, names);
    }
  }

  #found(id: string): { directory: string; archived: boolean } {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return found;
  }

  /**
   * Runs a read on the conversation's directory without the lock. When a file is missing, the
   * directory may have moved (archived, unarchived or removed meanwhile, perhaps moved back
   * already): the conversation is found again and the read repeated. A conversation that is gone
   * is `conversation-not-found`, never the system's "no such file" of the path it left; a file
   * that stays missing is reported as such.
   */
  #read<T>(id: string, read: (found: { directory: string; archived: boolean }) => T): T {
    for (let attempt = 1; ; attempt++) {
      const found = this.#found(id);
      try {
        return read(found);
      } catch (error) {
        if (attempt >= MOVE_RETRIES || !isMissingFile(error)) throw error;
      }
    }
  }
}

function isMissingFile(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause?.code;
  return code === "ENOENT" || cause === "ENOENT";
}

/**
 * How often a reader looks again for a conversation that moved while it was being read (a loaded
 * machine lost five races in a row against a mover toggling as fast as it can).
 */
const MOVE_RETRIES = 20;

function listDirectory(directory: string): string[] {
  try {
    return listEntries(directory);
  } catch (error) {
    throw unreadable(directory, error);
  }
}
