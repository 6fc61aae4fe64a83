#!/usr/bin/env node
/**
 * The cxc command: `require`s the CLI bundle (dist/cxc.cjs, or dist/list.cjs for a listing and
 * dist/query.cjs for a turn) and runs it; see docs/decisions/007-plain-require-and-nodes-compile-cache.md.
 *
 * On Node 22.1 and later, Node's own compile cache keeps the compiled bundles between runs, in
 * `$XDG_CACHE_HOME/cxc` (else `~/.cache/cxc`), one directory per Node version inside. Node checks
 * each entry against the file it was compiled from, and a cache it cannot write or read costs only
 * speed. `NODE_COMPILE_CACHE` (another directory) and `NODE_DISABLE_COMPILE_CACHE=1` work as they
 * do for any Node program. With `CXC_DEBUG=1`, stack traces point at `src/` files and lines
 * through the bundles' source maps. `--version` reads package.json and loads nothing else.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** Where the build writes the bundles. */
const DIST = path.join(__dirname, "..", "dist");

/**
 * dist/list.cjs when the first two words of the command line are `conversation|c` and `ls|list`
 * (global options before them are skipped with their values), dist/query.cjs when the first word
 * is `q` or `query` (whatever follows it: the turn's own options and message), dist/hook.cjs for
 * exactly `hook claude-code`, `hook codex` or `hook gemini` (what an agent runs as its hook), else
 * the whole CLI. list.cjs and query.cjs build the same program with that one command, so nothing
 * that reaches `ls` or `q` behaves differently; they just load a fraction of the code. hook.cjs
 * runs the same hook function the whole CLI's `cxc hook` runs.
 */
function bundleFor(args) {
  if (args.length === 2 && args[0] === "hook" && ["claude-code", "codex", "gemini"].includes(args[1])) {
    return "hook.cjs";
  }
  const words = [];
  for (let index = 0; index < args.length && words.length < 2; index++) {
    const arg = args[index];
    if (arg === "-c" || arg === "--cfg" || arg === "--format") index += 1;
    else if (arg === "--no-color" || arg.startsWith("--cfg=") || arg.startsWith("--format=")) continue;
    else if (arg.startsWith("-")) return "cxc.cjs";
    else if (words.push(arg) === 1 && (arg === "q" || arg === "query")) return "query.cjs";
  }
  const listing = (words[0] === "conversation" || words[0] === "c") && (words[1] === "ls" || words[1] === "list");
  return listing ? "list.cjs" : "cxc.cjs";
}

/** `$XDG_CACHE_HOME/cxc` when that is an absolute path, else `~/.cache/cxc` (none without a home). */
function compileCacheDirectory() {
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "cxc");
  const home = require("node:os").homedir();
  return home ? path.join(home, ".cache", "cxc") : undefined;
}

module.exports = { bundleFor, compileCacheDirectory };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${require("../package.json").version}\n`);
  } else {
    const cache = compileCacheDirectory();
    // Absent before Node 22.1: there every run compiles the bundle.
    if (cache) require("node:module").enableCompileCache?.(cache);
    if (process.env.CXC_DEBUG) process.setSourceMapsEnabled(true);
    const bundle = path.join(DIST, bundleFor(args));
    let main;
    try {
      ({ main } = require(bundle));
    } catch (error) {
      if (fs.existsSync(bundle)) throw error;
      process.stderr.write(`cxc: error: cxc is not built (${bundle} is missing)\n`);
      process.stderr.write("hint: run `npm run build` in the cxc checkout (`npm ci` builds it too)\n");
      process.exit(1);
    }
    main(args);
  }
}
