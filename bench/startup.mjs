/**
 * Start-up cost, for diagnosing the process scenarios: what node itself costs, what the libraries
 * cxc loads at start cost on their own, and cxc commands that do almost no work. When `ls` or
 * `show` miss their targets, these rows say whether module loading or the work is to blame.
 */
import { join } from "node:path";
import {
  addScenario,
  cxcOf,
  makeTemporaryHome,
  measureSideBySide,
  nodeBaseline,
  PROJECT_ROOT,
  settings,
  thisBuild,
  withRatios,
} from "./lib.mjs";

/**
 * A command line that only loads this build's CLI bundle, as bin/cxc.cjs does: Node's compile
 * cache on (where Node has one), then a plain `require`.
 */
function loadBundleOnly() {
  const { root, bin } = thisBuild();
  const script = [
    `require("node:module").enableCompileCache?.(require(${JSON.stringify(bin)}).compileCacheDirectory());`,
    `require(${JSON.stringify(join(root, "dist", "cxc.cjs"))});`,
  ].join("\n");
  return [settings.node, "-e", script];
}

/** A command line that only imports `specifier` (resolved from the project root). */
function importOnly(specifier) {
  const resolved = specifier.startsWith(".") ? join(PROJECT_ROOT, specifier) : specifier;
  return [settings.node, "--input-type=module", "-e", `await import(${JSON.stringify(resolved)})`];
}

/**
 * Turns off whichever cache a build has: Node's compile cache (bin/cxc.cjs since decision 007)
 * and the V8 code caches of the loader that decision replaced (`CXC_CODE_CACHE=off`). Each build
 * ignores the other's variable.
 */
const NO_CACHE = { NODE_DISABLE_COMPILE_CACHE: "1", CXC_CODE_CACHE: "off" };

export async function run({ runs, log }) {
  const empty = makeTemporaryHome("startup");
  try {
    const options = { env: empty.env, cwd: PROJECT_ROOT };
    const uncached = { ...options, env: { ...empty.env, ...NO_CACHE } };
    const commands = [
      { name: "node -e 0", commandLine: nodeBaseline(), options },
      { name: "import commander", commandLine: importOnly("commander"), options },
      { name: "import zod", commandLine: importOnly("zod"), options },
      {
        name: "require node:child_process",
        commandLine: [settings.node, "-e", 'require("node:child_process")'],
        options,
      },
      { name: "load dist/cxc.cjs (compile cache)", commandLine: loadBundleOnly(), options },
      { name: "load dist/cxc.cjs (no compile cache)", commandLine: loadBundleOnly(), options: uncached },
    ];
    const entries = settings.builds.map((build) => ({ build }));
    addScenario(commands, entries, "cxc --version", ({ build }) => ({
      commandLine: cxcOf(build, "--version"),
      options,
    }));
    addScenario(commands, entries, "cxc --help", ({ build }) => ({
      commandLine: cxcOf(build, "--help"),
      options,
    }));
    addScenario(commands, entries, "cxc --help (no cache)", ({ build }) => ({
      commandLine: cxcOf(build, "--help"),
      options: uncached,
    }));
    addScenario(commands, entries, "cxc conversation ls (empty store)", ({ build }) => ({
      commandLine: cxcOf(build, "conversation", "ls"),
      options,
    }));
    log(`timing ${commands.length} start-up probes × ${runs} runs, interleaved …`);
    return { notices: [], results: withRatios(measureSideBySide(commands, runs, { cpu: true }), commands) };
  } finally {
    empty.remove();
  }
}
