/**
 * The store API that child processes of the store tests use, re-exported from the sources so one
 * bundle (bundle-store.ts) carries it.
 */
export { newEventId, timestampNow } from "../../../src/store/ids.js";
export { acquireLock } from "../../../src/store/lock.js";
export { ConversationStore } from "../../../src/store/store.js";
