/**
 * Process-level compaction scenarios (issue 3), timed side by side with `node -e 0` in the same
 * run, on the largest conversation of the jp fixture workspace (imported with
 * `cxc conversation import`): `cxc conversation compact --dry-run` and
 * `cxc conversation print --compacted --format anthropic`. And the native summary (issue 42)
 * against the loopback fake beside cxc's own summarizer, with the printed request of a native
 * summary in force (`nativeScenarios`; no jp fixture needed).
 *
 * A dry run keeps the o200k token counts it computed in the conversation's `tokens.cache.json`;
 * the timed runs therefore measure the cached path (the warm-up run fills the cache), and the
 * first, uncached dry run is timed once on its own and reported as a notice.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  addScenario,
  cxcOf,
  JP_CONVERSATIONS,
  largestJpConversation,
  makeTemporaryHome,
  measureSideBySide,
  median,
  nodeBaseline,
  rowName,
  runCxc,
  settings,
  timeOnce,
  withRatios,
} from "./lib.mjs";
import { createConversation, startProvider } from "./query.mjs";

/** The conversation the native scenarios compact: turns with tool calls (bench/query.mjs). */
const NATIVE_TURNS = 200;
const NATIVE_MODEL = "anthropic/claude-opus-4-6";
const NATIVE_RANGE = "s:1..100";

/** Targets from the brief: the scenario's median over `node -e 0`'s median. */
export const TARGETS = {
  "cxc conversation compact --dry-run (largest jp)": 3,
  "cxc conversation print --compacted --format anthropic (largest jp)": 3,
};

export async function run({ runs, store, log }) {
  const native = await nativeScenarios({ runs, store, log });
  const jp = await jpScenarios({ runs, log });
  return { results: [...jp.results, ...native.results], notices: [...jp.notices, ...native.notices] };
}

/**
 * A native summary against the loopback fake beside cxc's own summarizer with the same model and
 * range (each run compacts turns 1..100 of a 200-turn conversation again, so each replaces its
 * previous summary, as compacting again does), and `print --compacted --format anthropic` with a
 * native summary in force (the block first, the beta header's request body). The fake answers at
 * once: the rows measure cxc, not a model.
 */
async function nativeScenarios({ runs, store, log }) {
  const provider = await startProvider(0, {
    replies: [],
    routes: [
      {
        bodyIncludes: '"compaction":{"type":"summarize"',
        reply: {
          kind: "compaction",
          content: "The user and the assistant read 100 files; all looked fine.",
          usage: { inputTokens: 60_000, outputTokens: 400 },
        },
      },
      { reply: { blocks: [{ type: "text", text: "The user and the assistant read 100 files." }] } },
    ],
  });
  const homes = settings.builds.map(() => makeTemporaryHome("native"));
  try {
    const prepared = settings.builds.map((build, index) => {
      const home = homes[index];
      const env = {
        ...home.env,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
      };
      log(`creating three ${NATIVE_TURNS}-turn conversations with tool calls …`);
      const [nativeId, ownId, printId] = [0, 1, 2].map(() =>
        createConversation(store, home.home, NATIVE_TURNS),
      );
      const compact = (id, native) =>
        cxcOf(
          build,
          "conversation",
          "compact",
          id,
          ...(native ? ["--native"] : []),
          "-m",
          NATIVE_MODEL,
          "-k",
          NATIVE_RANGE,
          "-y",
        );
      runCxc(compact(printId, true).slice(2), env, build);
      return { build, env, nativeId, ownId, printId, compact };
    });
    const commands = [{ name: "node -e 0", commandLine: nodeBaseline(), options: { env: prepared[0].env } }];
    addScenario(commands, prepared, NATIVE_COMPACT, ({ env, nativeId, compact }) => ({
      commandLine: compact(nativeId, true),
      options: { env },
    }));
    addScenario(commands, prepared, OWN_COMPACT, ({ env, ownId, compact }) => ({
      commandLine: compact(ownId, false),
      options: { env },
    }));
    addScenario(commands, prepared, NATIVE_PRINT, ({ build, env, printId }) => ({
      commandLine: cxcOf(build, "conversation", "print", "--compacted", "--format", "anthropic", printId),
      options: { env },
    }));
    log(`timing ${commands.length} native compaction commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const label = (build) => (settings.builds.length > 1 ? ` [${build.label}]` : "");
    const notices = prepared.map(({ build }) => {
      const row = (scenario) => results.find((result) => result.name === rowName(scenario, build));
      const native = row(NATIVE_COMPACT);
      const own = row(OWN_COMPACT);
      const paired = median(native.samples.map((value, round) => value / own.samples[round]));
      return `native summary / cxc's own summarizer${label(build)}: ${paired.toFixed(2)}× paired (${native.median.toFixed(0)} ms against ${own.median.toFixed(0)} ms; the fake answers at once)`;
    });
    return { results: withRatios(results, commands).slice(1), notices };
  } finally {
    provider.stop();
    for (const home of homes) home.remove();
  }
}

const NATIVE_COMPACT = `cxc conversation compact --native -m ${NATIVE_MODEL} -k ${NATIVE_RANGE} (${NATIVE_TURNS} turns, fake)`;
const OWN_COMPACT = `cxc conversation compact -m ${NATIVE_MODEL} -k ${NATIVE_RANGE}, cxc's summarizer (${NATIVE_TURNS} turns, fake)`;
const NATIVE_PRINT = `cxc conversation print --compacted --format anthropic, native summary in force (${NATIVE_TURNS} turns)`;

async function jpScenarios({ runs, log }) {
  const largest = largestJpConversation();
  if (!largest)
    return { results: [], notices: [`compaction scenarios skipped: no jp fixture at ${JP_CONVERSATIONS}`] };
  // Each build gets a store of its own: the builds may keep different caches beside a log.
  const homes = [];
  try {
    const prepared = settings.builds.map((build) => {
      const home = makeTemporaryHome("compact");
      homes.push(home);
      const [imported] = JSON.parse(
        runCxc(["--format", "json", "conversation", "import", largest.path, "--from", "jp"], home.env, build),
      );
      const dryRun = cxcOf(build, "conversation", "compact", "--dry-run", imported.id);
      rmSync(join(home.home, "conversations", imported.id, "tokens.cache.json"), { force: true });
      return { build, home, imported, dryRun, uncached: timeOnce(dryRun, { env: home.env }) };
    });
    const commands = [
      { name: "node -e 0", commandLine: nodeBaseline(), options: { env: prepared[0].home.env } },
    ];
    addScenario(
      commands,
      prepared,
      "cxc conversation compact --dry-run (largest jp)",
      ({ home, dryRun }) => ({
        commandLine: dryRun,
        options: { env: home.env },
      }),
    );
    addScenario(
      commands,
      prepared,
      "cxc conversation print --compacted --format anthropic (largest jp)",
      ({ build, home, imported }) => ({
        commandLine: cxcOf(
          build,
          "conversation",
          "print",
          "--compacted",
          "--format",
          "anthropic",
          imported.id,
        ),
        options: { env: home.env },
      }),
    );
    log(`timing ${commands.length} compaction commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const baseline = results[0];
    const megabytes = (largest.size / 1e6).toFixed(1);
    const label = (build) => (settings.builds.length > 1 ? ` [${build.label}]` : "");
    return {
      notices: [
        `compaction: ${largest.path.split("/").pop()} (${megabytes} MB of jp events, ${prepared[0].imported.events} events)`,
        ...prepared.map(
          ({ build, uncached }) =>
            `compaction${label(build)}: the first dry run, before tokens.cache.json exists, took ${uncached.toFixed(0)} ms (${(uncached / baseline.median).toFixed(1)}× node -e 0)`,
        ),
      ],
      results: withRatios(results, commands, TARGETS).slice(1),
    };
  } finally {
    for (const home of homes) home.remove();
  }
}
