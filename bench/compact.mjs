/**
 * Process-level compaction scenarios (issue 3), timed side by side with `node -e 0` in the same
 * run, on the largest conversation of the jp fixture workspace (imported with
 * `cxc conversation import`): `cxc conversation compact --dry-run` and
 * `cxc conversation print --compacted --format anthropic`.
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
  nodeBaseline,
  runCxc,
  settings,
  timeOnce,
  withRatios,
} from "./lib.mjs";

/** Targets from the brief: the scenario's median over `node -e 0`'s median. */
export const TARGETS = {
  "cxc conversation compact --dry-run (largest jp)": 3,
  "cxc conversation print --compacted --format anthropic (largest jp)": 3,
};

export async function run({ runs, log }) {
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
