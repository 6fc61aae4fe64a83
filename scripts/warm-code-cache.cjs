/**
 * Writes the V8 code caches of dist/cxc.cjs and its islands (run by `npm run build`, after tsup).
 *
 * A code cache holds the functions V8 had compiled when it was made, so this script first runs the
 * commands people run most, in this one process, against a temporary store holding the sample
 * conversation, then loads every island, and only then writes the caches. Output is discarded.
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { loadBundle, writeCodeCaches } = require("../bin/cxc.cjs");

const ROOT = path.join(__dirname, "..");
const SAMPLE = path.join(ROOT, "fixtures", "sample", "coding-session.jsonl");

/** Where tsup writes the bundles (each with its esbuild metafile; see tsup.config.ts). */
const BUNDLE_DIRECTORIES = ["dist", "dist/islands", "dist/islands/sdk"];

/** The files of the bundle directories whose names end in `suffix`, relative to the project. */
function filesIn(suffix) {
  return BUNDLE_DIRECTORIES.flatMap((directory) =>
    fs
      .readdirSync(path.join(ROOT, directory))
      .filter((name) => name.endsWith(suffix))
      .map((name) => `${directory}/${name}`),
  );
}

/**
 * Code compiled from a V8 code cache cannot run `import()` on Node 20 (the callback is lost), so a
 * bundle loaded that way must not import anything dynamically from outside itself. esbuild's
 * metafile lists every import of every output; an external dynamic import fails the build.
 */
function checkNoExternalDynamicImports() {
  const problems = [];
  for (const directory of BUNDLE_DIRECTORIES) {
    const meta = JSON.parse(fs.readFileSync(path.join(ROOT, directory, "metafile-cjs.json"), "utf8"));
    for (const [output, info] of Object.entries(meta.outputs)) {
      for (const entry of info.imports ?? []) {
        if (entry.kind === "dynamic-import" && entry.external)
          problems.push(`${output}: import("${entry.path}")`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `dynamic imports of outside modules in the bundles (make each an island in tsup.config.ts):\n  ${problems.join("\n  ")}`,
    );
  }
}

/** bin/cxc.cjs reads bundles as latin1, which is exact only for ASCII: fail the build otherwise. */
function checkAscii() {
  const { isAscii } = require("node:buffer");
  const wide = filesIn(".cjs").filter((bundle) => !isAscii(fs.readFileSync(path.join(ROOT, bundle))));
  if (wide.length > 0)
    throw new Error(`bundles with non-ASCII bytes (see tsup.config.ts): ${wide.join(", ")}`);
}

/** Caches of an earlier build (any Node, any flags) no longer fit the bundles: remove them. */
function removeOldCaches() {
  for (const cache of filesIn(".cache")) fs.rmSync(path.join(ROOT, cache), { force: true });
}

async function main() {
  checkNoExternalDynamicImports();
  checkAscii();
  removeOldCaches();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cxc-warm-"));
  const saved = { env: { ...process.env }, write: process.stdout.write, errorWrite: process.stderr.write };
  for (const key of Object.keys(process.env))
    if (/^(CXC_|ANTHROPIC_|OPENAI_)/.test(key)) delete process.env[key];
  Object.assign(process.env, {
    CXC_HOME: path.join(scratch, "home"),
    HOME: path.join(scratch, "user"),
    XDG_CONFIG_HOME: path.join(scratch, "config"),
    NO_COLOR: "1",
  });
  let failures = 0;
  try {
    const { main } = loadBundle("cxc.cjs");
    process.stdout.setMaxListeners(0); // main() adds an EPIPE listener per run
    process.stdout.write = () => true;
    process.stderr.write = () => true;
    const run = async (...args) => {
      process.exitCode = undefined;
      await main(args);
      if (process.exitCode) failures += 1;
    };
    await run("--help");
    await run("conversation", "import", SAMPLE);
    const [id] = fs.readdirSync(path.join(process.env.CXC_HOME, "conversations"));
    await run("conversation", "ls");
    await run("conversation", "ls", "--format", "json");
    await run("conversation", "show", id);
    await run("conversation", "print", id);
    await run("conversation", "print", "--compacted", "--format", "anthropic", id);
    await run("conversation", "compact", "--dry-run", id);
    await run("conversation", "stats", id);
    await run("conversation", "grep", "test");
    await run("config", "show");
    // The listing bundle gets a cache of its own, from listings only.
    const list = loadBundle("list.cjs").main;
    process.exitCode = undefined;
    await list(["conversation", "ls"]);
    await list(["--format", "json", "conversation", "ls", "--limit", "5"]);
    await list(["conversation", "ls", "--archived"]);
    if (process.exitCode) failures += 1;
    process.exitCode = undefined;
    const Anthropic = loadBundle("islands/sdk/anthropic.cjs").default;
    new Anthropic({ apiKey: "warm-up", baseURL: "http://127.0.0.1:9" });
    const OpenAI = loadBundle("islands/sdk/openai.cjs").default;
    new OpenAI({ apiKey: "warm-up", baseURL: "http://127.0.0.1:9" });
    loadBundle("islands/sdk/node-fetch.cjs");
    loadBundle("islands/prompts.cjs");
    loadBundle("islands/execa.cjs");
    new (loadBundle("islands/ajv.cjs").Ajv)().compile({
      type: "object",
      properties: { n: { type: "number" } },
    });
    loadBundle("islands/markdown.cjs").createMarkdownRenderer(80)(
      "# Title\n\nSome `code` and a list:\n\n- one\n",
    );
  } finally {
    process.stdout.write = saved.write;
    process.stderr.write = saved.errorWrite;
    process.env = saved.env;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  writeCodeCaches(true);
  const caches = filesIn(".cache");
  process.stdout.write(
    `warm-code-cache: ${caches.length} code caches written${failures ? ` (${failures} warm-up commands failed)` : ""}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`warm-code-cache: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
