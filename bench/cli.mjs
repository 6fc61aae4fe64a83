/**
 * Process-level scenarios, timed side by side with `node -e 0` in the same run:
 * `cxc --version`, `cxc conversation ls` over 1,000 conversations, and `cxc conversation show` and
 * `cxc conversation stats` on the largest conversation of the jp fixture workspace (imported with
 * `cxc conversation import`).
 */
import { readdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import {
  addScenario,
  cxcOf,
  JP_CONVERSATIONS,
  largestJpConversation,
  makeTemporaryHome,
  measureSideBySide,
  nodeBaseline,
  runCxc,
  settings,
  withRatios,
} from "./lib.mjs";

const CONVERSATION_COUNT = 1_000;

/** Targets from the brief: the scenario's median over `node -e 0`'s median. */
export const TARGETS = {
  "cxc --version": 2,
  "cxc conversation ls (1,000)": 2,
  "cxc conversation show (largest jp)": 3,
  "cxc conversation stats (largest jp)": 3,
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

/** Imports the largest jp conversation into `home` with `build`; returns its id and size, or a skip notice. */
function importLargest(env, build) {
  const largest = largestJpConversation();
  if (!largest) return { notice: `no jp fixture at ${JP_CONVERSATIONS}` };
  try {
    const [imported] = JSON.parse(
      runCxc(["--format", "json", "conversation", "import", largest.path, "--from", "jp"], env, build),
    );
    return { id: imported.id, events: imported.events, source: largest };
  } catch (error) {
    return { notice: `cxc conversation import failed (${error.message.split("\n")[0]})` };
  }
}

export async function run({ runs, store, log }) {
  // Each build gets stores of its own: the builds may keep different caches beside a log.
  const homes = [];
  try {
    const prepared = settings.builds.map((build) => {
      const listing = makeTemporaryHome("ls");
      const showing = makeTemporaryHome("show");
      homes.push(listing, showing);
      log(`creating ${CONVERSATION_COUNT} conversations …`);
      createConversations(store, listing.home, CONVERSATION_COUNT);
      ageMetadata(listing.home);
      return { build, listing, showing, imported: importLargest(showing.env, build) };
    });
    // Same environment as cxc: variables such as NODE_EXTRA_CA_CERTS change node's start-up cost.
    const commands = [
      { name: "node -e 0", commandLine: nodeBaseline(), options: { env: prepared[0].listing.env } },
    ];
    addScenario(commands, prepared, "cxc --version", ({ build, listing }) => ({
      commandLine: cxcOf(build, "--version"),
      options: { env: listing.env },
    }));
    addScenario(commands, prepared, "cxc conversation ls (1,000)", ({ build, listing }) => ({
      commandLine: cxcOf(build, "conversation", "ls"),
      options: { env: listing.env },
    }));
    addScenario(commands, prepared, "cxc conversation show (largest jp)", ({ build, showing, imported }) =>
      imported.id
        ? { commandLine: cxcOf(build, "conversation", "show", imported.id), options: { env: showing.env } }
        : undefined,
    );
    addScenario(commands, prepared, "cxc conversation stats (largest jp)", ({ build, showing, imported }) =>
      imported.id
        ? { commandLine: cxcOf(build, "conversation", "stats", imported.id), options: { env: showing.env } }
        : undefined,
    );
    const { imported } = prepared[0];
    const notices = imported.id
      ? [
          `show: ${imported.source.path.split("/").pop()} (${(imported.source.size / 1e6).toFixed(1)} MB of jp events, ${imported.events} events)`,
        ]
      : [`show skipped: ${imported.notice}`];
    log(`timing ${commands.length} commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    return { notices, results: withRatios(results, commands, TARGETS) };
  } finally {
    for (const home of homes) home.remove();
  }
}
