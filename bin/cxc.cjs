#!/usr/bin/env node
/**
 * The cxc command. Loads dist/cxc.cjs (the CLI in one CommonJS bundle) with the V8 code cache the
 * build wrote beside it, so start-up compiles almost nothing; see
 * docs/decisions/004-commonjs-bundles-with-a-code-cache.md.
 *
 * Caches are named for the Node version and flags they fit (`cxc.cjs.v20.20.2-x64-<hash>.cache`).
 * A missing cache, or one V8 rejects anyway, costs only speed: the bundle compiles as it would
 * without one, and if dist/ is writable a fresh cache is written for the next run. `--version`
 * reads package.json and loads nothing else.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const { createRequire } = require("node:module");

const DIST = path.join(__dirname, "..", "dist");
// The bundle runs inside this function, like a CommonJS module, plus the loader for its islands.
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname, __cxcLoadBundle) {";
const WRAPPER_TAIL = "\n})";

/**
 * V8 accepts a code cache only from the same V8 version with the same flags, so the cache's name
 * carries both: the Node version, and a hash of the flags Node was started with. Running once with
 * other flags (NODE_OPTIONS=--inspect, say) then writes a cache of its own instead of replacing
 * the one the build wrote.
 */
function cacheSuffix() {
  // Flags that only say what to run (`node -e …`, `--require …`) do not change how V8 compiles.
  const runOnly = new Set(["-e", "--eval", "-p", "--print", "-r", "--require", "--import"]);
  const compiling = [];
  for (let index = 0; index < process.execArgv.length; index++) {
    const flag = process.execArgv[index];
    if (runOnly.has(flag)) index += 1;
    else if (!/^(--eval|--print|--require|--import|--input-type)=/.test(flag)) compiling.push(flag);
  }
  const flags = `${compiling.join(" ")}|${process.env.NODE_OPTIONS ?? ""}`;
  let hash = 0x811c9dc5;
  for (let index = 0; index < flags.length; index++) {
    hash ^= flags.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${process.version}-${process.arch}-${hash.toString(16).padStart(8, "0")}.cache`;
}
const CACHE_SUFFIX = cacheSuffix();

/** The bundles this process loaded, by name, in load order. */
const loaded = new Map();

/**
 * Runs `dist/<name>` as a CommonJS module compiled from its code cache, and returns its exports.
 *
 * Code run by `vm` has no `import()` (and on Node 20 code compiled from a cache would lose it
 * anyway): the build guarantees the bundles never import dynamically from outside themselves.
 */
function loadBundle(name) {
  const known = loaded.get(name);
  if (known) return known.module.exports;
  const file = path.join(DIST, name);
  // The build makes every bundle pure ASCII (and checks it), which latin1 reads exactly and fastest.
  const source = fs.readFileSync(file, "latin1");
  let cachedData;
  if (process.env.CXC_CODE_CACHE !== "off") {
    try {
      cachedData = fs.readFileSync(`${file}.${CACHE_SUFFIX}`);
    } catch {}
  }
  const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, { filename: file, cachedData });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  const entry = { name, file, script, module, rejected: cachedData === undefined || script.cachedDataRejected };
  loaded.set(name, entry);
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), loadBundle);
  module.loaded = true;
  return module.exports;
}

/**
 * Writes the code cache of every bundle this process loaded (`all`), or only of those whose cache
 * was missing or rejected. Atomic (temporary file, then rename), and silent when dist/ is read-only.
 */
function writeCodeCaches(all = false) {
  const entries = [...loaded.values()];
  if (!all && !entries.some((entry) => entry.rejected)) return;
  try {
    fs.accessSync(DIST, fs.constants.W_OK);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!all && !entry.rejected) continue;
    const temporary = `${entry.file}.${CACHE_SUFFIX}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temporary, entry.script.createCachedData());
      fs.renameSync(temporary, `${entry.file}.${CACHE_SUFFIX}`);
    } catch {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {}
    }
  }
}

/** The bundles this process loaded, and whether each ran from its code cache (for tests). */
function codeCacheStatus() {
  return [...loaded.values()].map((entry) => ({ name: entry.name, fromCache: !entry.rejected }));
}

module.exports = { loadBundle, writeCodeCaches, codeCacheStatus, bundleFor, CACHE_SUFFIX };

/**
 * The bundle to run: dist/list.cjs when the first two words of the command line are
 * `conversation|c` and `ls|list` (global options before them are skipped with their values), else
 * the whole CLI. list.cjs builds the same program with that one command, so nothing that reaches
 * `ls` behaves differently; it just loads a fraction of the code.
 */
function bundleFor(args) {
  const words = [];
  for (let index = 0; index < args.length && words.length < 2; index++) {
    const arg = args[index];
    if (arg === "-c" || arg === "--cfg" || arg === "--format") index += 1;
    else if (arg === "--no-color" || arg.startsWith("--cfg=") || arg.startsWith("--format=")) continue;
    else if (arg.startsWith("-")) return "cxc.cjs";
    else words.push(arg);
  }
  const listing = (words[0] === "conversation" || words[0] === "c") && (words[1] === "ls" || words[1] === "list");
  return listing ? "list.cjs" : "cxc.cjs";
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${require("../package.json").version}\n`);
  } else {
    let main;
    try {
      ({ main } = loadBundle(bundleFor(args)));
    } catch (error) {
      if (error.code !== "ENOENT") throw error;
      process.stderr.write(`cxc: error: cxc is not built (${error.path} is missing)\n`);
      process.stderr.write("hint: run `npm run build` in the cxc checkout (`npm ci` builds it too)\n");
      process.exit(1);
    }
    main(args).then(() => {
      if (process.env.CXC_CODE_CACHE !== "off") writeCodeCaches();
    });
  }
}
