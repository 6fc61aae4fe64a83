/**
 * Loading a conversation once per turn. `cxc q` reads the log before taking the lock (to pick the
 * model the conversation last used) and must read it again under the lock; parsing a long log is
 * the largest cost of a turn, so the second read reuses the first when the file has not changed
 * (same size and modification time). Anything appended meanwhile (another writer, `-k`) changes
 * the size, and the log is read again.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { EVENTS_FILE } from "../store/paths.js";
import type { ConversationStore, LoadedConversation } from "../store/store.js";

/** A loaded conversation and the state of its log file when it was read. */
export interface LogSnapshot {
  readonly id: string;
  readonly loaded: LoadedConversation;
  readonly signature: string | undefined;
}

function signatureOf(directory: string): string | undefined {
  try {
    const stat = statSync(join(directory, EVENTS_FILE));
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/** Loads conversation `id`, remembering the log's size and modification time. */
export function loadSnapshot(store: ConversationStore, id: string): LogSnapshot {
  const found = store.locate(id);
  const before = found ? signatureOf(found.directory) : undefined;
  const loaded = store.load(id);
  // A write between the stat and the read would make the signature stale: then never reuse.
  const after = signatureOf(loaded.directory);
  return { id, loaded, signature: before === after ? after : undefined };
}

/** The snapshot's conversation when the log is unchanged, else a fresh load. */
export function reloadIfChanged(
  store: ConversationStore,
  id: string,
  snapshot: LogSnapshot | undefined,
): LoadedConversation {
  if (snapshot && snapshot.id === id && snapshot.signature !== undefined) {
    if (signatureOf(snapshot.loaded.directory) === snapshot.signature) return snapshot.loaded;
  }
  return store.load(id);
}
