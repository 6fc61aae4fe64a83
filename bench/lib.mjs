/**
 * Benchmark helpers: timing child processes, medians, a store bundle for in-process timings,
 * temporary stores, and the result table.
 *
 * Wall times of whole processes are what a user feels, so `measure` spawns the command and times
 * it from spawn to exit. On a shared machine load comes and goes; `measureSideBySide` therefore
 * interleaves the commands run by run, so a ratio compares samples taken at the same moments, and
 * (where GNU time is installed) also reports the CPU time each process used, which load from other
 * processes barely moves.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CXC_BIN = join(PROJECT_ROOT, "bin", "cxc.cjs");

/**
 * A built cxc checkout to time: its root, its command, and a label naming its branch and commit
 * (shown only when two builds are compared).
 */
export function buildAt(root) {
  const git = (...args) =>
    spawnSync("git", ["-C", root, ...args], { encoding: "utf8" }).stdout?.trim() || undefined;
  const commit = git("rev-parse", "--short", "HEAD");
  const branch = git("rev-parse", "--abbrev-ref", "HEAD");
  const changed = git("status", "--porcelain", "--untracked-files=no") ? "+changes" : "";
  const label = commit ? `${branch && branch !== "HEAD" ? `${branch}@` : ""}${commit}${changed}` : root;
  return { root, bin: join(root, "bin", "cxc.cjs"), label };
}

/**
 * What every timed process runs: the Node binary (`--node`, else the one running the bench) and
 * the builds under test, oldest first: the checkout given with `--compare`, if any, then this
 * one. Set once by bench/run.mjs (`configure`) before any scenario runs.
 */
export const settings = { node: process.execPath, builds: [buildAt(PROJECT_ROOT)] };

export function configure({ node, compare }) {
  if (node) settings.node = node;
  if (compare) settings.builds = [buildAt(compare), buildAt(PROJECT_ROOT)];
}

/** The build in this checkout (the last of `settings.builds`). */
export const thisBuild = () => settings.builds.at(-1);

/** A row's name: the scenario, and the build's label when two builds are compared. */
export function rowName(scenario, build) {
  return settings.builds.length > 1 ? `${scenario} [${build.label}]` : scenario;
}

/** `node -e 0` under the Node being timed: the baseline of every ratio. */
export const nodeBaseline = () => [settings.node, "-e", "0"];

/**
 * Adds a scenario's rows to `commands`, one per build: `each(entry)` returns the command line and
 * options for an entry (`{ build, … }`, the build with whatever was prepared for it), or nothing
 * to leave that build out.
 */
export function addScenario(commands, entries, scenario, each) {
  for (const entry of entries) {
    const command = each(entry);
    if (command)
      commands.push({ name: rowName(scenario, entry.build), scenario, build: entry.build.label, ...command });
  }
}

/**
 * The rows of a group: each result of measureSideBySide with its scenario, build and target, and
 * its ratios over the first command's (the `node -e 0` baseline's).
 */
export function withRatios(results, commands, targets = {}) {
  const baseline = results[0];
  return results.map((result, index) => ({
    ...result,
    scenario: commands[index].scenario ?? result.name,
    build: commands[index].build,
    ratio: result.median / baseline.median,
    ...(result.cpuMedian !== undefined ? { cpuRatio: result.cpuMedian / baseline.cpuMedian } : {}),
    target: targets[commands[index].scenario ?? result.name],
  }));
}

/**
 * The real jp workspace's conversations, beside the project (absent in a user's clone), or where
 * `CXC_BENCH_JP` points (a checkout in a worktree has no `../shared`).
 */
export const JP_CONVERSATIONS =
  process.env.CXC_BENCH_JP ??
  join(PROJECT_ROOT, "..", "shared", "fixtures", "jp-workspace", ".jp", "conversations");

/** The jp conversation directory whose events.json is largest, or undefined without the fixture. */
export function largestJpConversation() {
  let best;
  try {
    for (const name of readdirSync(JP_CONVERSATIONS)) {
      const size =
        statSync(join(JP_CONVERSATIONS, name, "events.json"), { throwIfNoEntry: false })?.size ?? 0;
      if (!best || size > best.size) best = { name, path: join(JP_CONVERSATIONS, name), size };
    }
  } catch {
    return undefined;
  }
  return best;
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Runs `commandLine` (an argv array; the first entry is the program) once and returns its wall
 * time in milliseconds. Throws when it exits non-zero, so a broken command is not timed as fast.
 */
export function timeOnce(commandLine, options = {}) {
  const [program, ...args] = commandLine;
  const started = performance.now();
  const result = spawnSync(program, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: options.env ?? process.env,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  const elapsed = performance.now() - started;
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${commandLine.join(" ")} exited with ${result.status}: ${result.stderr.trim()}`);
  }
  return elapsed;
}

const GNU_TIME = "/usr/bin/time";

/** Whether CPU times can be measured (GNU time is installed). */
export const canMeasureCpu = existsSync(GNU_TIME);

/**
 * Runs `commandLine` once under GNU time and returns the CPU time (user + system) it used, in
 * milliseconds (10 ms resolution).
 */
export function cpuOnce(commandLine, options = {}) {
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-time-"));
  try {
    const output = join(scratch, "time.txt");
    timeOnce([GNU_TIME, "-f", "%U %S", "-o", output, ...commandLine], options);
    const [user, system] = readFileSync(output, "utf8").trim().split(/\s+/).map(Number);
    return (user + system) * 1000;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Spawns `commandLine` `runs` times (after one warm-up run) and returns the median wall time. */
export function measure(commandLine, runs, options = {}) {
  timeOnce(commandLine, options);
  const samples = [];
  for (let run = 0; run < runs; run++) samples.push(timeOnce(commandLine, options));
  return median(samples);
}

/**
 * Measures several commands in the same run, interleaved (run 1 of each, then run 2 of each, …)
 * after one warm-up each. Returns `{ name, median, pairedRatio, samples, cpuMedian? }` per command,
 * in the given order; `pairedRatio` is the median over rounds of the command's time over the first
 * command's (the baseline's) time in that round; `cpuMedian` (from a second interleaved pass
 * under GNU time) when `options.cpu` is set and GNU time is available.
 */
export function measureSideBySide(commands, runs, options = {}) {
  for (const command of commands) timeOnce(command.commandLine, command.options);
  const interleave = (timer) => {
    const samples = commands.map(() => []);
    for (let run = 0; run < runs; run++) {
      commands.forEach((command, index) => {
        samples[index].push(timer(command.commandLine, command.options));
      });
    }
    return samples;
  };
  const wall = interleave(timeOnce);
  const cpu = options.cpu && canMeasureCpu ? interleave(cpuOnce) : undefined;
  return commands.map((command, index) => ({
    name: command.name,
    median: median(wall[index]),
    // Each round's time over the first command's time in the same round, then the median of those.
    // A shared machine drifts between faster and slower spells; a round's samples are taken
    // within a few hundred milliseconds of each other, so this ratio is the steadiest estimate.
    pairedRatio: median(wall[index].map((value, round) => value / wall[0][round])),
    samples: wall[index].map((value) => Math.round(value * 10) / 10),
    ...(cpu ? { cpuMedian: median(cpu[index]) } : {}),
  }));
}

/** Times a synchronous or async function in-process `runs` times; returns median and samples. */
export async function measureInProcess(action, runs) {
  const samples = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await action(run);
    samples.push(performance.now() - started);
  }
  return { median: median(samples), samples: samples.map((value) => Math.round(value * 100) / 100) };
}

/** A temporary CXC_HOME and the environment to run cxc in it; `remove()` deletes it. */
export function makeTemporaryHome(label) {
  const base = mkdtempSync(join(tmpdir(), `cxc-bench-${label}-`));
  const home = join(base, "home");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: join(base, "user"),
    CXC_HOME: home,
    XDG_CONFIG_HOME: join(base, "config"),
    NO_COLOR: "1",
  };
  return { base, home, env, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * A command line for the floor under `cxc q`: a process that only loads a build's Anthropic SDK
 * bundle the way its bin does and sends one streaming request to `ANTHROPIC_BASE_URL` through the
 * transport that build gives the SDK, reading the reply to its end. Whatever cxc does for a turn
 * comes on top. A build from before decision 007 (it has dist/islands/sdk/anthropic.cjs) loads the bundle
 * through its code-cache loader and sends through node-fetch; later builds `require` it with
 * Node's compile cache on and send through Node's own `fetch`.
 */
export function bareSdkRequest(build = thisBuild()) {
  const { root, bin } = build;
  const request = [
    "(async () => {",
    '  const stream = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 64, stream: true,',
    '    messages: [{ role: "user", content: "one more question" }] });',
    "  for await (const event of stream) void event;",
    "})();",
  ];
  const options =
    "apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0";
  const load = existsSync(join(root, "dist", "islands", "sdk", "anthropic.cjs"))
    ? [
        `const { loadBundle } = require(${JSON.stringify(bin)});`,
        `const Anthropic = loadBundle("islands/sdk/anthropic.cjs").default;`,
        `const fetch = loadBundle("islands/sdk/node-fetch.cjs").default;`,
        `const client = new Anthropic({ ${options}, fetch });`,
      ]
    : [
        `require("node:module").enableCompileCache?.(require(${JSON.stringify(bin)}).compileCacheDirectory());`,
        `const Anthropic = require(${JSON.stringify(join(root, "dist", "islands", "anthropic.cjs"))}).default;`,
        `const client = new Anthropic({ ${options} });`,
      ];
  return [settings.node, "-e", [...load, ...request].join("\n")];
}

/** A cxc command line for a build (this checkout's by default): `node bin/cxc.cjs …args`. */
export function cxcOf(build, ...args) {
  return [settings.node, build.bin, ...args];
}

/** A cxc command line of this checkout's build. */
export function cxc(...args) {
  return cxcOf(thisBuild(), ...args);
}

/** Runs cxc once and returns stdout; throws on failure (for setup steps, not timings). */
export function runCxc(args, env, build = thisBuild()) {
  const result = spawnSync(settings.node, [build.bin, ...args], { env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`cxc ${args.join(" ")} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * The median over rounds of `later`'s time over `earlier`'s time in the same round: how much
 * faster (< 1) or slower (> 1) one build ran a scenario than the other, paired like `pairedRatio`.
 */
export function pairedBetween(earlier, later) {
  return median(later.samples.map((value, round) => value / earlier.samples[round]));
}

/**
 * Builds TypeScript entries of src/ (`{ name: path relative to src/ }`) into temporary ES modules
 * and imports them, for in-process timings: dist/ holds these modules only inside the CLI bundle,
 * with no exports of their own. Returns the modules by name and `remove()`.
 */
export async function buildSourceModules(entries) {
  const { build } = await import("tsup");
  // Inside the project, not the system temporary directory: the store loads some packages (ulid)
  // with `require` when first used, and they resolve from node_modules above the bundle.
  const cacheDirectory = join(PROJECT_ROOT, "node_modules", ".cache");
  mkdirSync(cacheDirectory, { recursive: true });
  const outDir = mkdtempSync(join(cacheDirectory, "cxc-bench-"));
  await build({
    entry: Object.fromEntries(
      Object.entries(entries).map(([name, path]) => [name, join(PROJECT_ROOT, "src", path)]),
    ),
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    outExtension: () => ({ js: ".mjs" }),
    noExternal: [/.*/],
    splitting: true,
    sourcemap: false,
    dts: false,
    clean: false,
    silent: true,
    config: false,
  });
  const modules = {};
  for (const name of Object.keys(entries)) {
    modules[name] = await import(pathToFileURL(join(outDir, `${name}.mjs`)).href);
  }
  return { modules, outDir, remove: () => rmSync(outDir, { recursive: true, force: true }) };
}

/** The store and its id sources, built from the sources (see buildSourceModules). */
export async function loadStore() {
  const { modules, remove } = await buildSourceModules({ store: "store/store.ts", ids: "store/ids.ts" });
  return { ...modules.store, ...modules.ids, remove };
}

/** Formats rows (arrays of cells) as an aligned text table with a header row. */
export function formatTable(header, rows) {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column].length)));
  const line = (row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  ");
  return [line(all[0]), widths.map((width) => "-".repeat(width)).join("  "), ...all.slice(1).map(line)].join(
    "\n",
  );
}

/** The jp workspace committed in fixtures/: the corpus when ../shared's is absent (a fresh clone). */
export const COMMITTED_JP = join(PROJECT_ROOT, "fixtures", "jp-workspace", ".jp", "conversations");

function readJsonIfThere(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

/** jp's conversation folders under `root` (those holding events.json), then its `.archive`'s, sorted. */
function jpDirectories(root) {
  const list = (folder) =>
    readdirSync(folder)
      .filter((name) => !name.startsWith(".") && existsSync(join(folder, name, "events.json")))
      .sort()
      .map((name) => ({ name, path: join(folder, name) }));
  const archive = join(root, ".archive");
  return [...list(root), ...(existsSync(archive) ? list(archive) : [])];
}

/** The jp corpus a bench reads: the one given (`--jp DIR`), else ../shared's, else the committed one. */
export function jpCorpusRoot(given) {
  return given ?? (existsSync(JP_CONVERSATIONS) ? JP_CONVERSATIONS : COMMITTED_JP);
}

/**
 * Every conversation of the jp corpus at `root` imported with cxc's jp reader (`jp`, the built
 * core/interop/jp module), each as its folder name and events.
 */
export function importJpCorpus(jp, root) {
  return jpDirectories(root).map((directory) => ({
    name: directory.name,
    events: importJpDirectory(jp, directory),
  }));
}

/** The events of one jp conversation folder (`{ name, path }`), imported with cxc's jp reader (`jp`). */
export function importJpDirectory(jp, directory) {
  const imported = jp.importJpConversation({
    directoryName: directory.name,
    metadata: readJsonIfThere(join(directory.path, "metadata.json")),
    baseConfig: readJsonIfThere(join(directory.path, "base_config.json")),
    events: readJsonIfThere(join(directory.path, "events.json")),
    archived: false,
  });
  if (!imported.ok) throw new Error(`${directory.name}: ${imported.error}`);
  return imported.value.events;
}
