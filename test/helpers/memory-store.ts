/**
 * The in-memory store (the port's second implementation, src/store/memory-store.ts) for tests of
 * the shell that need a store but no directory, plus a record of every append batch for tests
 * that check what was stored together.
 */
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { type CreateOptions, createMemoryStore, type Store } from "../../src/store/index.js";

/** A memory store that also keeps each `append` batch, in order. */
export type RecordingStore = Store & { readonly appends: ConversationEvent[][] };

/** A memory store holding one conversation per entry of `conversations` (none by default). */
export async function recordingStore(...conversations: CreateOptions[]): Promise<RecordingStore> {
  const store = await createMemoryStore();
  for (const conversation of conversations) store.create(conversation);
  const appends: ConversationEvent[][] = [];
  const append = store.append.bind(store);
  store.append = (id, events, now) => {
    const meta = append(id, events, now);
    appends.push([...events]);
    return meta;
  };
  return Object.assign(store, { appends });
}
