/**
 * Start-up cost, for diagnosing the process scenarios: what node itself costs, what the libraries
 * cxc loads at start cost on their own, and cxc commands that do almost no work. When `ls` or
 * `show` miss their targets, these rows say whether module loading or the work is to blame.
 */
import { join } from "node:path";
import { cxc, makeTemporaryHome, measureSideBySide, PROJECT_ROOT } from "./lib.mjs";

/** A command line that only loads the CLI bundle through bin/cxc.cjs's code-cache loader. */
function loadBundleOnly() {
  const loader = join(PROJECT_ROOT, "bin", "cxc.cjs");
  return [process.execPath, "-e", `require(${JSON.stringify(loader)}).loadBundle("cxc.cjs")`];
}

/** A command line that only imports `specifier` (resolved from the project root). */
function importOnly(specifier) {
  const resolved = specifier.startsWith(".") ? join(PROJECT_ROOT, specifier) : specifier;
  return [process.execPath, "--input-type=module", "-e", `await import(${JSON.stringify(resolved)})`];
}

export async function run({ runs, log }) {
  const empty = makeTemporaryHome("startup");
  try {
    const options = { env: empty.env, cwd: PROJECT_ROOT };
    const commands = [
      { name: "node -e 0", commandLine: [process.execPath, "-e", "0"], options },
      { name: "import commander", commandLine: importOnly("commander"), options },
      { name: "import zod", commandLine: importOnly("zod"), options },
      { name: "load dist/cxc.cjs (code cache)", commandLine: loadBundleOnly(), options },
      {
        name: "load dist/cxc.cjs (CXC_CODE_CACHE=off)",
        commandLine: loadBundleOnly(),
        options: { ...options, env: { ...empty.env, CXC_CODE_CACHE: "off" } },
      },
      { name: "cxc --version", commandLine: cxc("--version"), options },
      { name: "cxc --help", commandLine: cxc("--help"), options },
      { name: "cxc conversation ls (empty store)", commandLine: cxc("conversation", "ls"), options },
    ];
    log(`timing ${commands.length} start-up probes × ${runs} runs, interleaved …`);
    const results = measureSideBySide(commands, runs, { cpu: true });
    const baseline = results[0];
    return {
      notices: [],
      results: results.map((result) => ({
        ...result,
        ratio: result.median / baseline.median,
        ...(result.cpuMedian !== undefined ? { cpuRatio: result.cpuMedian / baseline.cpuMedian } : {}),
      })),
    };
  } finally {
    empty.remove();
  }
}
