/**
 * `npm run bench`: runs every scenario group, prints one table, writes bench/results/latest.json.
 *
 *   node bench/run.mjs [--runs N]     (N ≥ 7; default 9)
 *
 * Process timings are medians of N interleaved runs, as ratios over `node -e 0` measured in the
 * same run, plus CPU times where GNU time is installed (robust against load from other processes).
 * The process scenarios run bin/cxc.js, so dist/ must be current: run `npm run build` first (the
 * bench builds it only when it is missing).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import * as cliScenarios from "./cli.mjs";
import { formatTable, loadStore, PROJECT_ROOT } from "./lib.mjs";
import * as storeScenarios from "./store.mjs";

function parseRuns(argv) {
  const index = argv.indexOf("--runs");
  const runs = index >= 0 ? Number(argv[index + 1]) : 9;
  if (!Number.isInteger(runs) || runs < 7) throw new Error("--runs needs a whole number of at least 7");
  return runs;
}

const log = (message) => process.stderr.write(`bench: ${message}\n`);
const milliseconds = (value) => `${value.toFixed(1)} ms`;

function ensureBuilt() {
  if (existsSync(join(PROJECT_ROOT, "dist", "cli", "main.js"))) return;
  log("dist/ is missing; building it …");
  execFileSync(
    process.execPath,
    [join(PROJECT_ROOT, "node_modules", "tsup", "dist", "cli-default.js"), "--silent"],
    {
      cwd: PROJECT_ROOT,
      stdio: "inherit",
    },
  );
}

async function main() {
  const runs = parseRuns(process.argv.slice(2));
  ensureBuilt();
  const store = await loadStore();
  try {
    const loadBefore = loadavg()[0];
    const cli = await cliScenarios.run({ runs, store, log });
    const appends = await storeScenarios.run({ runs, store, log });
    const loadAfter = loadavg()[0];

    const cliRows = cli.results.map((result) => [
      result.name,
      milliseconds(result.median),
      `${result.ratio.toFixed(2)}×`,
      result.target ? `≤ ${result.target}×` : "",
      result.target ? (result.ratio <= result.target ? "ok" : "MISSED") : "",
      result.cpuMedian === undefined ? "n/a" : `${Math.round(result.cpuMedian)} ms`,
      result.cpuRatio === undefined ? "n/a" : `${result.cpuRatio.toFixed(2)}×`,
    ]);
    const cliHeader = ["scenario", "wall median", "vs node", "target", "", "cpu median", "cpu vs node"];
    process.stdout.write(`\n${formatTable(cliHeader, cliRows)}\n`);
    for (const notice of cli.notices) process.stdout.write(`  ${notice}\n`);
    const storeRows = appends.results.map((result) => [
      result.name,
      milliseconds(result.append.median),
      milliseconds(result.load.median),
    ]);
    process.stdout.write(
      `\n${formatTable(["conversation size", "append one turn", "load (for contrast)"], storeRows)}\n`,
    );
    process.stdout.write(
      `\n${runs} runs each; ${cpus().length} CPUs; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}\n`,
    );

    const resultsDirectory = join(PROJECT_ROOT, "bench", "results");
    mkdirSync(resultsDirectory, { recursive: true });
    const document = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      load_average: [loadBefore, loadAfter],
      runs,
      cli: cli.results,
      notices: cli.notices,
      append: appends.results,
    };
    writeFileSync(join(resultsDirectory, "latest.json"), `${JSON.stringify(document, null, 2)}\n`);
    log(`wrote ${join("bench", "results", "latest.json")}`);
  } finally {
    store.remove();
  }
}

await main();
