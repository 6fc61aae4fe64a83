/**
 * In-process store scenarios: appending one turn to conversations of 1, 10 and 50 MB (through
 * `appendLocked`, the path every command uses: lock, torn-tail check, durable append, metadata
 * update), and for contrast loading them. Appends should stay flat as the log grows; loads grow.
 */
import { measureInProcess, makeTemporaryHome } from "./lib.mjs";

const SIZES_MB = [1, 10, 50];
const CHUNK_BYTES = 1_000_000;

/** A turn with a message of about `bytes` characters. */
function turn(store, bytes, label) {
  const now = Date.now();
  const stamp = () => ({ id: store.newEventId(now), ts: new Date(now).toISOString() });
  return [
    { type: "turn_start", ...stamp() },
    { type: "chat_request", ...stamp(), content: `${label}: ${"x".repeat(Math.max(0, bytes - 40))}` },
    { type: "chat_response", ...stamp(), message: "ok" },
  ];
}

async function fillTo(conversations, store, id, targetBytes, currentBytes) {
  let size = currentBytes;
  while (size < targetBytes) {
    const events = turn(store, Math.min(CHUNK_BYTES, targetBytes - size), "filler");
    await conversations.appendLocked(id, events, "bench fill");
    size += JSON.stringify(events).length;
  }
  return size;
}

export async function run({ runs, store, log }) {
  const temporary = makeTemporaryHome("append");
  try {
    const conversations = new store.ConversationStore(
      { kind: "home", root: temporary.home, origin: "bench" },
      { CXC_HOME: temporary.home },
    );
    const id = conversations.create({ title: "append benchmark" }).id;
    let size = 0;
    const results = [];
    for (const megabytes of SIZES_MB) {
      log(`growing the conversation to ${megabytes} MB …`);
      size = await fillTo(conversations, store, id, megabytes * 1e6, size);
      const append = await measureInProcess(
        (index) => conversations.appendLocked(id, turn(store, 2_000, `turn ${index}`), "bench append"),
        runs,
      );
      size += runs * 2_100;
      const load = await measureInProcess(() => conversations.load(id), Math.min(runs, 7));
      results.push({ name: `${megabytes} MB`, append, load });
    }
    return { results };
  } finally {
    temporary.remove();
  }
}
