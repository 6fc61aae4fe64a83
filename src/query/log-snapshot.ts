/**
 * Loading a conversation once per turn. `cxc q` reads the log before taking the lock (to pick the
 * model the conversation last used) and must read it again under the lock; parsing a long log is
 * the largest cost of a turn, so the second read reuses the first when the log has not changed
 * (the store's `revision`: for files, the log's size and modification time). Anything appended
 * meanwhile (another writer, `-k`) changes the revision, and the log is read again.
 */
import type { LoadedConversation, StoreReader } from "../store/index.js";

/** A loaded conversation and the revision of its log when it was read. */
export interface LogSnapshot {
  readonly id: string;
  readonly loaded: LoadedConversation;
  readonly signature: string | undefined;
}

/** Loads conversation `id`, remembering its revision. */
export function loadSnapshot(store: StoreReader, id: string): LogSnapshot {
  const before = store.revision(id);
  const loaded = store.load(id);
  // A write between the two looks would make the revision stale: then never reuse.
  const after = store.revision(id);
  return { id, loaded, signature: before === after ? after : undefined };
}

/** The snapshot's conversation when the log is unchanged, else a fresh load. */
export function reloadIfChanged(
  store: StoreReader,
  id: string,
  snapshot: LogSnapshot | undefined,
): LoadedConversation {
  if (snapshot && snapshot.id === id && snapshot.signature !== undefined) {
    if (store.revision(id) === snapshot.signature) return snapshot.loaded;
  }
  return store.load(id);
}
