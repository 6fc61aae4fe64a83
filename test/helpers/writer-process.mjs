/**
 * A child process for the store's crash and concurrency tests. It imports a bundle of the real
 * store (built by test/store/helpers/bundle-store.ts) and writes to one conversation:
 *
 *   node writer-process.mjs append-loop  <bundle> <root> <conversation-id> <seed>
 *       waits for a line on stdin (so a parent can start it ahead of time and let it load), then
 *       appends turns of varied sizes forever; after each append returns, prints the ids it wrote
 *       on one line ("ids <id> <id> …"). The parent kills it with SIGKILL at random moments.
 *   node writer-process.mjs append-count <bundle> <root> <conversation-id> <turns> <tag>
 *       appends <turns> turns of two events each (turn_start, chat_request "<tag>:<n>"), each turn
 *       one append under the lock, then prints "done".
 *   node writer-process.mjs append-big   <bundle> <root> <conversation-id> <bytes>
 *       appends one turn holding a message of <bytes> characters (one large write the parent can
 *       kill in the middle of), prints its ids, and exits.
 *   node writer-process.mjs create-big   <bundle> <root> <conversation-id> <bytes>
 *       creates the conversation with one turn holding a message of <bytes> characters (a create
 *       the parent can kill half-way), prints "created", and exits.
 *   node writer-process.mjs hold-lock    <bundle> <root> <conversation-id> <milliseconds>
 *       takes the conversation's lock as "test holder", prints "locked", holds it, releases it.
 *   node writer-process.mjs archive-toggle <bundle> <root> <conversation-id> <times>
 *       archives and unarchives the conversation <times> times (each under its lock, as
 *       `cxc conversation archive` does), then prints "done".
 *
 * Every mode prints "ready" once the store is loaded. Output goes through writeSync so a line the
 * parent reads was written before the process could be killed.
 */
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [mode, bundlePath, root, conversationId, ...rest] = process.argv.slice(2);
const store = await import(pathToFileURL(bundlePath).href);
const environment = { CXC_HOME: root, CXC_LOCK_TIMEOUT_MS: process.env.CXC_LOCK_TIMEOUT_MS ?? "20000" };
const conversations = new store.ConversationStore({ kind: "home", root, origin: "test" }, environment);

function say(line) {
  writeSync(1, `${line}\n`);
}

/** A small deterministic pseudo-random generator (mulberry32), so a failing seed can be replayed. */
function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Text of about `size` bytes with multi-byte characters, so a torn write can split one. */
function filler(size) {
  const unit = 'abc ü € 😀 "quoted" \\ line\n';
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

function event(type, fields = {}) {
  return { type, id: store.newEventId(), ts: store.timestampNow(), ...fields };
}

function waitForStdin() {
  return new Promise((resolve) => process.stdin.once("data", resolve));
}

async function appendLoop(seed) {
  const random = createRandom(seed);
  // Turns of one to several pages. (A kill inside one big write is its own test: append-big.)
  const sizes = [40, 200, 1_000, 4_000, 16_000, 32_000];
  await waitForStdin();
  for (;;) {
    const size = sizes[Math.floor(random() * sizes.length)];
    const events = [event("turn_start"), event("chat_request", { content: filler(size) })];
    if (random() < 0.5) events.push(event("chat_response", { message: filler(Math.floor(size / 2)) }));
    await conversations.appendLocked(conversationId, events, "test append-loop");
    say(`ids ${events.map((item) => item.id).join(" ")}`);
  }
}

async function appendCount(turns, tag) {
  for (let index = 0; index < turns; index++) {
    const events = [event("turn_start"), event("chat_request", { content: `${tag}:${index}` })];
    await conversations.appendLocked(conversationId, events, `test append-count ${tag}`);
  }
  say("done");
}

async function appendBig(bytes) {
  const events = [event("turn_start"), event("chat_request", { content: "z".repeat(bytes) })];
  await conversations.appendLocked(conversationId, events, "test append-big");
  say(`ids ${events.map((item) => item.id).join(" ")}`);
}

function createBig(bytes) {
  conversations.create({
    id: conversationId,
    events: [event("turn_start"), event("chat_request", { content: "c".repeat(bytes) })],
  });
  say("created");
}

async function holdLock(milliseconds) {
  const lock = await store.acquireLock(root, conversationId, { command: "test holder" });
  say("locked");
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
  lock.release();
  say("released");
}

async function archiveToggle(times) {
  for (let index = 0; index < times; index++) {
    await conversations.archive(conversationId);
    await conversations.unarchive(conversationId);
  }
  say("done");
}

say("ready");
if (mode === "append-loop") await appendLoop(Number(rest[0]));
else if (mode === "append-count") await appendCount(Number(rest[0]), rest[1]);
else if (mode === "append-big") await appendBig(Number(rest[0]));
else if (mode === "create-big") createBig(Number(rest[0]));
else if (mode === "hold-lock") await holdLock(Number(rest[0]));
else if (mode === "archive-toggle") await archiveToggle(Number(rest[0]));
else {
  process.stderr.write(`writer-process: unknown mode ${mode}\n`);
  process.exitCode = 2;
}
