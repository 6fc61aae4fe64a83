/**
 * The store's entry module: the only file of src/store that the rest of cxc imports
 * (test/architecture.test.ts fails otherwise). It gives the port (port.ts) and the ways to get one:
 *
 * - `openFileStore(cwd, env)`: the store the CLI uses (a workspace's `.cxc/`, else `$CXC_HOME`, …);
 * - `createMemoryStore(options)`: the same promises in memory, for tests of the shell;
 * - `openFileListing(cwd, env)`: listing and the active conversation from metadata alone, for
 *   `cxc conversation ls`;
 *
 * and what goes with a store: ids and timestamps for new events, the review guard, workspace
 * creation, and import and export of other formats.
 *
 * What is exported directly loads no event-log code and no schema library, so importing this
 * module costs a listing nothing; the stores and the format converters are loaded on first use.
 */
import { listConversations } from "./listing.js";
import type { MemoryStoreOptions } from "./memory-store.js";
import { conversationDirectoryOf, resolveStoreLocation } from "./paths.js";
import type { CachingTokenCounter, Environment, Store, StoreListing } from "./port.js";
import { readActive, readSessionHistory } from "./session.js";

export { CONVERSATION_ID_PATTERN, newConversationId, newEventId, timestampNow } from "./ids.js";
export type { AgentExportResult, AgentImportBatch, AgentImportOutcome } from "./agent-sessions.js";
export type { ImportOutcome } from "./import.js";
export type { MemoryStoreOptions } from "./memory-store.js";
export { ensureDirectory, readTextOr } from "./files.js";
export { withoutKey } from "./meta.js";
export { findWorkspace } from "./paths.js";
export type {
  CachingTokenCounter,
  ConversationListing,
  ConversationMeta,
  CreateOptions,
  Environment,
  ListedConversation,
  LoadedConversation,
  LockedConversation,
  LogHeader,
  ReviewInfo,
  ReviewOutcome,
  StagedConversation,
  Store,
  StoreListing,
  StoreLocation,
  StoreReader,
} from "./port.js";
export { readOnly } from "./reader.js";
export { assertNoOpenReview } from "./review-guard.js";
export { type ScratchOptions, scratchDirectory, writeScratchFile } from "./scratch.js";
export { initWorkspace } from "./workspace.js";

/** The file store for this working directory and environment. */
export async function openFileStore(cwd: string, env: Environment): Promise<Store> {
  const { ConversationStore } = await import("./store.js");
  return ConversationStore.open(cwd, env);
}

/** A store in memory, empty, or sharing the data of another memory store (`options.sharing`). */
export async function createMemoryStore(options: MemoryStoreOptions = {}): Promise<Store> {
  const { MemoryStore } = await import("./memory-store.js");
  return new MemoryStore(options);
}

/** Listing and the active conversation from the metadata of the file store, loading nothing else. */
export { conversationDirectoryOf, resolveStoreLocation };

export function openFileListing(cwd: string, env: Environment): StoreListing {
  const root = resolveStoreLocation(cwd, env).root;
  return {
    list: (options = {}) => listConversations(root, options),
    active: () => readActive(root, env),
    sessionHistory: () => readSessionHistory(root, env),
  };
}

/**
 * The o200k counter outside any conversation (a hook counting an agent's session): memoized for
 * the process, cached nowhere.
 */
export async function loadPlainTokenCounter(): Promise<CachingTokenCounter> {
  const { loadTokenCounter } = await import("./token-counter.js");
  return loadTokenCounter();
}

/** opencode's database read (opencode-source.ts), loaded on first use: cxc's opencode hook reads one session. */
export async function loadOpencodeSource(): Promise<typeof import("./opencode-source.js")> {
  return import("./opencode-source.js");
}

/** Import from and export to other formats (import.ts, export.ts), loaded on first use. */
export async function loadInterop(): Promise<typeof import("./interop.js")> {
  return import("./interop.js");
}
