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
  cxc,
  makeTemporaryHome,
  measureSideBySide,
  runCxc,
  timeOnce,
  JP_CONVERSATIONS,
  largestJpConversation,
} from "./lib.mjs";

/** Targets from the brief: the scenario's median over `node -e 0`'s median. */
export const TARGETS = {
  "cxc conversation compact --dry-run (largest jp)": 3,
  "cxc conversation print --compacted --format anthropic (largest jp)": 3,
};

export async function run({ runs, log }) {
  const home = makeTemporaryHome("compact");
  try {
    const largest = largestJpConversation();
    if (!largest)
      return { results: [], notices: [`compaction scenarios skipped: no jp fixture at ${JP_CONVERSATIONS}`] };
    const [imported] = JSON.parse(
      runCxc(["--format", "json", "conversation", "import", largest.path, "--from", "jp"], home.env),
    );
    const dryRun = cxc("conversation", "compact", "--dry-run", imported.id);
    const cacheFile = join(home.home, "conversations", imported.id, "tokens.cache.json");
    rmSync(cacheFile, { force: true });
    const uncached = timeOnce(dryRun, { env: home.env });
    const commands = [
      { name: "node -e 0", commandLine: [process.execPath, "-e", "0"], options: { env: home.env } },
      {
        name: "cxc conversation compact --dry-run (largest jp)",
        commandLine: dryRun,
        options: { env: home.env },
      },
      {
        name: "cxc conversation print --compacted --format anthropic (largest jp)",
        commandLine: cxc("conversation", "print", "--compacted", "--format", "anthropic", imported.id),
        options: { env: home.env },
      },
    ];
    log(`timing ${commands.length} compaction commands × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const baseline = results[0];
    const megabytes = (largest.size / 1e6).toFixed(1);
    return {
      notices: [
        `compaction: ${largest.path.split("/").pop()} (${megabytes} MB of jp events, ${imported.events} events)`,
        `compaction: the first dry run, before tokens.cache.json exists, took ${uncached.toFixed(0)} ms (${(uncached / baseline.median).toFixed(1)}× node -e 0)`,
      ],
      results: results.slice(1).map((result) => ({
        ...result,
        ratio: result.median / baseline.median,
        ...(result.cpuMedian !== undefined ? { cpuRatio: result.cpuMedian / baseline.cpuMedian } : {}),
        target: TARGETS[result.name],
      })),
    };
  } finally {
    home.remove();
  }
}
