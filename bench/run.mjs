/**
 * `npm run bench`: runs every scenario group, prints its tables, writes bench/results/latest.json.
 *
 *   node bench/run.mjs [--runs N] [--only NAME,NAME] [--node PATH] [--compare DIR]   (N ≥ 7; default 9)
 *
 * Process timings are medians of N interleaved runs, as ratios over `node -e 0` measured in the
 * same run and environment, plus CPU times where GNU time is installed (load from other processes
 * moves wall times far more than CPU times). Two ratios are printed: the median of the command
 * over the median of `node -e 0`, and the median of the per-round ratios ("paired"), which a
 * machine drifting between faster and slower spells moves least. Targets are judged on the paired
 * ratio. The process scenarios run bin/cxc.cjs, so dist/ must be
 * current: run `npm run build` first (the bench builds it only when it is missing).
 *
 * `--node PATH` times every process (`node -e 0` included) under that Node binary instead of the
 * one running the bench. `--compare DIR` times another built checkout of cxc (say, main) beside
 * this one, in the same rounds, each with stores of its own: every cxc row then appears once per
 * build, labelled with its branch and commit, and a last table gives each scenario's paired ratio
 * between the two builds (this one's time over the other's, round by round).
 *
 * A process group is a module exporting `run({ runs, store, log })` that resolves to
 * `{ results: [{ name, median, ratio, cpuMedian?, target?, scenario?, build? }], notices? }`. An
 * in-process group resolves to `{ name, median, cpuMedian?, first?, target, met }` (target in
 * milliseconds). Optional groups whose module is absent are skipped with a notice.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { configure, formatTable, loadStore, PROJECT_ROOT, pairedBetween, settings } from "./lib.mjs";
import * as storeScenarios from "./store.mjs";

const PROCESS_GROUPS = [
  { name: "cli", title: "commands (targets from the brief)", module: "./cli.mjs" },
  { name: "query", title: "cxc q per-turn overhead", module: "./query.mjs", optional: true },
  { name: "compact", title: "compaction commands", module: "./compact.mjs", optional: true },
  {
    name: "agent-import",
    title: "importing a large Claude Code session and Codex rollout",
    module: "./agent-import.mjs",
  },
  {
    name: "agent-load",
    title: "importing a 50 MB session of each of the five agents, beside the floor and the agent's own load",
    module: "./agent-load.mjs",
  },
  { name: "hook", title: "the Claude Code and Gemini CLI hooks", module: "./hook.mjs" },
  { name: "startup", title: "start-up cost (diagnosis)", module: "./startup.mjs" },
];

const IN_PROCESS_GROUPS = [
  { name: "projection", module: "./projection.mjs", optional: true },
  { name: "projection-cycles", module: "./projection-cycles.mjs", optional: true },
  { name: "projection-native", module: "./projection-native.mjs", optional: true },
];

const log = (message) => process.stderr.write(`bench: ${message}\n`);
const milliseconds = (value) => `${value.toFixed(1)} ms`;

function parseArguments(argv) {
  const runsIndex = argv.indexOf("--runs");
  const runs = runsIndex >= 0 ? Number(argv[runsIndex + 1]) : 9;
  if (!Number.isInteger(runs) || runs < 7) throw new Error("--runs needs a whole number of at least 7");
  const onlyIndex = argv.indexOf("--only");
  const only = onlyIndex >= 0 ? new Set(argv[onlyIndex + 1].split(",")) : undefined;
  const value = (name) => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const node = value("--node");
  const compare = value("--compare");
  if (compare && !existsSync(join(compare, "dist", "cxc.cjs"))) {
    throw new Error(`--compare ${compare}: not a built cxc checkout (no dist/cxc.cjs)`);
  }
  return { runs, only, node, compare };
}

function ensureBuilt() {
  if (existsSync(join(PROJECT_ROOT, "dist", "cxc.cjs"))) return;
  log("dist/ is missing; building it …");
  const tsup = join(PROJECT_ROOT, "node_modules", "tsup", "dist", "cli-default.js");
  execFileSync(process.execPath, [tsup, "--silent"], { cwd: PROJECT_ROOT, stdio: "inherit" });
}

function renderProcessGroup(title, group) {
  const rows = group.results.map((result) => {
    const judged = result.pairedRatio ?? result.ratio;
    return [
      result.name,
      milliseconds(result.median),
      `${result.ratio.toFixed(2)}×`,
      result.pairedRatio === undefined ? "n/a" : `${result.pairedRatio.toFixed(2)}×`,
      result.target ? `≤ ${result.target}×` : "",
      result.target ? (judged <= result.target ? "ok" : "MISSED") : "",
      result.cpuMedian === undefined ? "n/a" : `${Math.round(result.cpuMedian)} ms`,
    ];
  });
  const header = [title, "wall median", "vs node", "paired", "target", "", "cpu median"];
  const notices = (group.notices ?? []).map((notice) => `  ${notice}\n`).join("");
  return `\n${formatTable(header, rows)}\n${notices}${renderComparison(group)}`;
}

/**
 * With two builds: per scenario, each build's median and paired ratio over `node -e 0`, and the
 * paired ratio between them (the later build's time over the earlier's, round by round).
 */
function renderComparison(group) {
  if (settings.builds.length < 2) return "";
  const [earlier, later] = settings.builds.map((build) => build.label);
  const rows = [];
  for (const scenario of new Set(group.results.map((result) => result.scenario))) {
    const before = group.results.find((result) => result.scenario === scenario && result.build === earlier);
    const after = group.results.find((result) => result.scenario === scenario && result.build === later);
    if (!before || !after) continue;
    const change = pairedBetween(before, after);
    group.comparison = [
      ...(group.comparison ?? []),
      { scenario, before: before.build, after: after.build, paired: change },
    ];
    rows.push([
      scenario,
      milliseconds(before.median),
      `${before.pairedRatio.toFixed(2)}×`,
      milliseconds(after.median),
      `${after.pairedRatio.toFixed(2)}×`,
      `${change.toFixed(3)}`,
    ]);
  }
  if (rows.length === 0) return "";
  const header = ["scenario", earlier, "paired", later, "paired", "later / earlier (paired)"];
  return `\n${formatTable(header, rows)}\n`;
}

function renderStoreGroup(group) {
  const rows = group.results.map((result) => [
    result.name,
    milliseconds(result.append.median),
    milliseconds(result.load.median),
  ]);
  const header = ["conversation size", "append one turn (in-process)", "load (for contrast)"];
  return `\n${formatTable(header, rows)}\n`;
}

function renderInProcessGroup(result) {
  const row = [
    result.name,
    result.first === undefined ? "n/a" : milliseconds(result.first),
    milliseconds(result.median),
    result.cpuMedian === undefined ? "n/a" : milliseconds(result.cpuMedian),
    `≤ ${result.target} ms`,
    result.met ? "ok" : "MISSED",
  ];
  const header = ["in-process", "first", "wall median", "cpu median", "target", ""];
  return `\n${formatTable(header, [row])}\n`;
}

/** Runs each selected group in turn; `render` turns its result into text for stdout. */
async function runGroups(groups, render, context, only, document) {
  for (const group of groups) {
    if (only && !only.has(group.name)) continue;
    if (group.optional && !existsSync(join(PROJECT_ROOT, "bench", group.module))) {
      log(`skipping ${group.name}: ${group.module} is not there`);
      continue;
    }
    const scenarios = await import(group.module);
    const result = await scenarios.run(context);
    document[group.name] = result;
    process.stdout.write(render(group, result));
  }
}

async function main() {
  const { runs, only, node, compare } = parseArguments(process.argv.slice(2));
  configure({ node, compare });
  ensureBuilt();
  const store = await loadStore();
  try {
    const loadBefore = loadavg()[0];
    const timedNode = execFileSync(settings.node, ["--version"], { encoding: "utf8" }).trim();
    const document = {
      date: new Date().toISOString(),
      node: timedNode,
      builds: settings.builds.map((build) => build.label),
      cpus: cpus().length,
      runs,
    };
    const context = { runs, store, log };
    await runGroups(
      PROCESS_GROUPS,
      (group, result) => renderProcessGroup(group.title, result),
      context,
      only,
      document,
    );
    await runGroups(
      IN_PROCESS_GROUPS,
      (_group, result) => renderInProcessGroup(result),
      context,
      only,
      document,
    );
    if (!only || only.has("store")) {
      document.append = (await storeScenarios.run({ runs, store, log })).results;
      process.stdout.write(renderStoreGroup({ results: document.append }));
    }
    const loadAfter = loadavg()[0];
    document.load_average = [loadBefore, loadAfter];
    process.stdout.write(
      `\n${runs} runs each; Node ${timedNode}; ${cpus().length} CPUs; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}\n`,
    );
    const resultsDirectory = join(PROJECT_ROOT, "bench", "results");
    mkdirSync(resultsDirectory, { recursive: true });
    writeFileSync(join(resultsDirectory, "latest.json"), `${JSON.stringify(document, null, 2)}\n`);
    log(`wrote ${join("bench", "results", "latest.json")}`);
  } finally {
    store.remove();
  }
}

await main();
