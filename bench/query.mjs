/**
 * The per-turn overhead of `cxc q`: process start, load, projection, request building, streaming
 * from the loopback fake provider (which answers at once) and storing the turn, over conversations
 * of 20, 200 and 2,000 turns with tool calls, timed side by side with `node -e 0`; each size also
 * with the context gauge a terminal prints after the turn (`conversation.context_gauge = "show"`).
 *
 *   node bench/query.mjs [--runs N] [--node PATH] [--compare DIR]
 *                                       (standalone; `run()` is the scenario for bench/run.mjs)
 *
 * Target (issue 5): at most 3× `node -e 0`, and flat as the conversation grows.
 *
 * The peer: where the pinned Claude Code is installed (agents/, `.ci/run` installs it), the same
 * rounds time `claude -p` answering one prompt against the same fake provider (one request, the
 * same instant reply), and a notice gives each `cxc q` row over it, paired round by round
 * (issue 40: a `q` turn at a fraction of Claude Code's).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadTsModule } from "../test/helpers/load-ts.mjs";
import {
  addScenario,
  bareSdkRequest,
  configure,
  cxcOf,
  formatTable,
  loadStore,
  makeTemporaryHome,
  measureSideBySide,
  median,
  nodeBaseline,
  PROJECT_ROOT,
  settings,
  withRatios,
} from "./lib.mjs";

const SIZES = [20, 200, 2_000];
export const TARGET_RATIO = 3;

/** One turn with reasoning, a tool call with about 1 KB of output, and an answer. */
function turnEvents(store, time, index) {
  let tick = 0;
  const stamp = () => {
    tick += 1;
    return { id: store.newEventId(time + tick), ts: new Date(time + tick).toISOString() };
  };
  const callId = `call_${index}`;
  return [
    { type: "turn_start", ...stamp() },
    { type: "chat_request", ...stamp(), content: `Question ${index}: please look at src/file-${index}.ts` },
    { type: "chat_response", ...stamp(), reasoning: `I should read src/file-${index}.ts first.` },
    {
      type: "tool_call_request",
      ...stamp(),
      call_id: callId,
      name: "read_file",
      arguments: { path: `src/file-${index}.ts` },
    },
    {
      type: "tool_call_response",
      ...stamp(),
      call_id: callId,
      content: `line\n`.repeat(200),
      is_error: false,
    },
    { type: "chat_response", ...stamp(), message: `The file ${index} looks fine.` },
  ];
}

export function createConversation(store, root, turns) {
  const conversations = new store.ConversationStore(
    { kind: "home", root, origin: "bench" },
    { CXC_HOME: root },
  );
  const start = Date.UTC(2026, 0, 1);
  const events = [];
  for (let index = 0; index < turns; index++) events.push(...turnEvents(store, start + index * 1000, index));
  return conversations.create({ title: `${turns} turns`, events }).id;
}

/**
 * Starts the fake provider as a child process with `count` instant text replies, or with the
 * script given (`{ replies, routes }`, as fake-provider-cli.mjs reads it).
 */
export async function startProvider(count, given) {
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-provider-"));
  const script = join(scratch, "replies.json");
  writeFileSync(
    script,
    JSON.stringify(
      given ?? Array.from({ length: count }, () => ({ blocks: [{ type: "text", text: "ok" }] })),
    ),
  );
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "test", "helpers", "fake-provider-cli.mjs"), "--script", script],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise((resolve, reject) => {
    child.once("error", reject);
    createInterface({ input: child.stdout }).once("line", resolve);
  });
  return {
    ...JSON.parse(line),
    stop: () => {
      child.kill("SIGTERM");
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export async function run({ runs, store, log }) {
  // Each build gets a store of its own: the builds may keep different caches beside a log.
  const homes = settings.builds.map(() => makeTemporaryHome("query"));
  // Every timed run consumes a reply or more: warm-up + runs, twice (wall and CPU passes), per row
  // (each size twice: without and with the context gauge).
  const rows = (1 + 2 * SIZES.length) * settings.builds.length + 1;
  const provider = await startProvider(4 * rows * (2 * runs + 2));
  let peer;
  try {
    const envOf = (home) => ({
      ...home.env,
      ANTHROPIC_API_KEY: "bench-key",
      ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
      CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
    });
    const env = envOf(homes.at(-1));
    // The same environment as cxc: variables such as NODE_EXTRA_CA_CERTS change node's start-up cost.
    const commands = [{ name: "node -e 0", commandLine: nodeBaseline(), options: { env } }];
    // Not cxc: the SDK alone making the same request, the floor under every row below.
    addScenario(
      commands,
      settings.builds.map((build) => ({ build })),
      "floor: the Anthropic SDK alone, one request",
      ({ build }) => ({ commandLine: bareSdkRequest(build), options: { env } }),
    );
    for (const turns of SIZES) {
      log(
        `creating ${settings.builds.length === 1 ? "a" : "two"} ${turns}-turn conversation with tool calls …`,
      );
      const entries = settings.builds.map((build, index) => ({
        build,
        env: envOf(homes[index]),
        id: createConversation(store, homes[index].home, turns),
      }));
      addScenario(commands, entries, `cxc q (${turns.toLocaleString("en")} turns)`, ({ build, env, id }) => ({
        commandLine: cxcOf(build, "q", "--id", id, "one more question"),
        options: { env },
      }));
      // The same turn with the context gauge line a terminal gets after each turn.
      addScenario(
        commands,
        entries,
        `cxc q + context gauge (${turns.toLocaleString("en")} turns)`,
        ({ build, env, id }) => ({
          commandLine: cxcOf(build, "q", "--id", id, "one more question"),
          options: { env: { ...env, CXC_CONVERSATION__CONTEXT_GAUGE: "show" } },
        }),
      );
    }
    peer = await claudePeer(provider.anthropicBaseURL);
    if (peer !== undefined) commands.push(peer.command);
    log(`timing ${commands.length} commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const targets = Object.fromEntries(
      SIZES.map((turns) => [`cxc q (${turns.toLocaleString("en")} turns)`, TARGET_RATIO]),
    );
    return {
      results: withRatios(results, commands, targets),
      notices:
        peer === undefined
          ? ["the peer: Claude Code is not installed in agents/ (npm ci there)"]
          : peerNotices(results, peer.command.name),
    };
  } finally {
    provider.stop();
    for (const home of homes) home.remove();
    peer?.remove();
  }
}

/**
 * `claude -p` answering one prompt against the fake provider, in a home and project of its own
 * (the environment the agents' tests give it: no telemetry, no updater, no other traffic).
 */
async function claudePeer(baseUrl) {
  const helpers = await loadTsModule(join(PROJECT_ROOT, "test", "helpers", "agents.ts"));
  const binary = helpers.agentBinary(PROJECT_ROOT, "claude");
  if (binary === undefined) return undefined;
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-peer-"));
  const place = { home: join(scratch, "home"), cwd: join(scratch, "project") };
  mkdirSync(place.cwd, { recursive: true });
  const version = JSON.parse(
    readFileSync(
      join(PROJECT_ROOT, "agents", "node_modules", "@anthropic-ai", "claude-code", "package.json"),
      "utf8",
    ),
  ).version;
  return {
    command: {
      name: `peer: claude -p, one prompt (Claude Code ${version})`,
      commandLine: [binary, "-p", "one more question", "--model", "claude-sonnet-4-5"],
      options: { env: helpers.claudeCodeEnvironment(place, baseUrl), cwd: place.cwd },
    },
    remove: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** Each `cxc q` row over the peer: the median of the round-by-round ratios. */
function peerNotices(results, peerName) {
  const peer = results.find((result) => result.name === peerName);
  return results
    .filter((result) => /^cxc q \(/.test(result.name))
    .map((result) => {
      const paired = median(result.samples.map((value, round) => value / peer.samples[round]));
      return `${result.name} / claude -p: ${paired.toFixed(2)}× paired (${result.median.toFixed(0)} ms against ${peer.median.toFixed(0)} ms)`;
    });
}

async function main() {
  const option = (name) => {
    const index = process.argv.indexOf(name);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const runs = Number(option("--runs") ?? 9);
  configure({ node: option("--node"), compare: option("--compare") });
  const store = await loadStore();
  try {
    const { results, notices } = await run({
      runs,
      store,
      log: (message) => process.stderr.write(`bench: ${message}\n`),
    });
    const rows = results.map((result) => [
      result.name,
      `${result.median.toFixed(1)} ms`,
      `${result.ratio.toFixed(2)}×`,
      result.target ? (result.ratio <= result.target ? "ok" : "MISSED") : "",
      result.cpuMedian === undefined ? "n/a" : `${Math.round(result.cpuMedian)} ms`,
      result.cpuRatio === undefined ? "n/a" : `${result.cpuRatio.toFixed(2)}×`,
    ]);
    process.stdout.write(
      `${formatTable(["scenario", "wall median", "vs node", `≤ ${TARGET_RATIO}×`, "cpu", "cpu vs node"], rows)}\n`,
    );
    for (const notice of notices) process.stdout.write(`${notice}\n`);
  } finally {
    store.remove();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) await main();
