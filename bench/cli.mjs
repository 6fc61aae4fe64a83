/**
 * Process-level scenarios, timed side by side with `node -e 0` in the same run:
 * `cxc --version`, `cxc conversation ls` over 1,000 conversations, and `cxc conversation show` on
 * the largest conversation of the jp fixture workspace (imported with `cxc conversation import`).
 */
import { readdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import {
  cxc,
  makeTemporaryHome,
  measureSideBySide,
  runCxc,
  JP_CONVERSATIONS,
  largestJpConversation,
} from "./lib.mjs";

const CONVERSATION_COUNT = 1_000;

/** Targets from the brief: the scenario's median over `node -e 0`'s median. */
export const TARGETS = {
  "cxc --version": 2,
  "cxc conversation ls (1,000)": 2,
  "cxc conversation show (largest jp)": 3,
};

/**
 * Sets each meta.json's modification time to the conversation's last update, as in a store whose
 * conversations were not all written in the last second. (The listing cache holds only metadata
 * files older than two seconds; without this, the timed runs would depend on how long after the
 * set-up they start.) The warm-up run then writes the cache, as an earlier `ls` would have.
 */
function ageMetadata(root) {
  const base = join(root, "conversations");
  for (const id of readdirSync(base)) {
    const path = join(base, id, "meta.json");
    const updated = new Date(JSON.parse(readFileSync(path, "utf8")).updated_at);
    utimesSync(path, updated, updated);
  }
}

/** Fills a store with `count` small conversations through the store API. */
function createConversations(store, root, count) {
  const conversations = new store.ConversationStore(
    { kind: "home", root, origin: "bench" },
    { CXC_HOME: root },
  );
  const start = Date.UTC(2026, 0, 1);
  for (let index = 0; index < count; index++) {
    const time = start + index * 60_000;
    const stamp = (offset) => ({
      id: store.newEventId(time + offset),
      ts: new Date(time + offset).toISOString(),
    });
    conversations.create({
      id: store.newConversationId(time),
      title: `Benchmark conversation ${index}`,
      createdAt: new Date(time).toISOString(),
      events: [
        { type: "turn_start", ...stamp(0) },
        { type: "chat_request", ...stamp(1), content: `question ${index}` },
        { type: "chat_response", ...stamp(2), message: `answer ${index}` },
      ],
    });
  }
}

/** Imports the largest jp conversation into `home`; returns its id and size, or a skip notice. */
function importLargest(env) {
  const largest = largestJpConversation();
  if (!largest) return { notice: `no jp fixture at ${JP_CONVERSATIONS}` };
  try {
    const [imported] = JSON.parse(
      runCxc(["--format", "json", "conversation", "import", largest.path, "--from", "jp"], env),
    );
    return { id: imported.id, events: imported.events, source: largest };
  } catch (error) {
    return { notice: `cxc conversation import failed (${error.message.split("\n")[0]})` };
  }
}

export async function run({ runs, store, log }) {
  const listing = makeTemporaryHome("ls");
  const showing = makeTemporaryHome("show");
  try {
    log(`creating ${CONVERSATION_COUNT} conversations …`);
    createConversations(store, listing.home, CONVERSATION_COUNT);
    ageMetadata(listing.home);
    const imported = importLargest(showing.env);
    const commands = [
      // Same environment as cxc: variables such as NODE_EXTRA_CA_CERTS change node's start-up cost.
      { name: "node -e 0", commandLine: [process.execPath, "-e", "0"], options: { env: listing.env } },
      { name: "cxc --version", commandLine: cxc("--version"), options: { env: listing.env } },
      {
        name: "cxc conversation ls (1,000)",
        commandLine: cxc("conversation", "ls"),
        options: { env: listing.env },
      },
    ];
    const notices = [];
    if (imported.id) {
      commands.push({
        name: "cxc conversation show (largest jp)",
        commandLine: cxc("conversation", "show", imported.id),
        options: { env: showing.env },
      });
      const megabytes = (imported.source.size / 1e6).toFixed(1);
      notices.push(
        `show: ${imported.source.path.split("/").pop()} (${megabytes} MB of jp events, ${imported.events} events)`,
      );
    } else {
      notices.push(`show skipped: ${imported.notice}`);
    }
    log(`timing ${commands.length} commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const baseline = results[0];
    return {
      notices,
      results: results.map((result) => ({
        ...result,
        ratio: result.median / baseline.median,
        ...(result.cpuMedian !== undefined ? { cpuRatio: result.cpuMedian / baseline.cpuMedian } : {}),
        target: TARGETS[result.name],
      })),
    };
  } finally {
    listing.remove();
    showing.remove();
  }
}
