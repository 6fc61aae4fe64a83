/**
 * The in-memory store (the port's second implementation, src/store/memory-store.ts) for tests of
 * the shell that need a store but no directory, plus a record of every append batch for tests
 * that check what was stored together.
 */
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { runTurn, type TurnOptions, type TurnResult } from "../../src/query/turn-loop.js";
import {
  type CreateOptions,
  createMemoryStore,
  type LockedConversation,
  type Store,
} from "../../src/store/index.js";

/** A memory store that also keeps each `append` batch, in order. */
export type RecordingStore = Store & {
  readonly appends: ConversationEvent[][];
  /** Runs `action` with conversation `id` held under its lock, as a turn does. */
  holding<T>(id: string, action: (conversation: LockedConversation) => T | Promise<T>): Promise<T>;
};

/** A memory store holding one conversation per entry of `conversations` (none by default). */
export async function recordingStore(...conversations: CreateOptions[]): Promise<RecordingStore> {
  const store = await createMemoryStore();
  for (const conversation of conversations) store.create(conversation);
  const appends: ConversationEvent[][] = [];
  const locked = store.locked.bind(store);
  store.locked = (id, command, action) =>
    locked(id, command, (conversation) =>
      action({
        id: conversation.id,
        load: () => conversation.load(),
        append: (events, now) => {
          const meta = conversation.append(events, now);
          appends.push([...events]);
          return meta;
        },
        saveAdvisorState: (state) => conversation.saveAdvisorState(state),
        updateMeta: (change) => conversation.updateMeta(change),
      }),
    );
  const holding = <T>(id: string, action: (conversation: LockedConversation) => T | Promise<T>) =>
    store.locked(id, "test", action);
  return Object.assign(store, { appends, holding });
}

/** Runs a turn as `cxc q` does: with the conversation held under its lock for the whole turn. */
export function runHeldTurn(
  store: Store,
  id: string,
  options: Omit<TurnOptions, "conversation">,
): Promise<TurnResult> {
  return store.locked(id, "cxc q", (conversation) => runTurn({ ...options, conversation }));
}
