import type { Plugin } from "esbuild";
import { defineConfig, type Options } from "tsup";
import { eventSchemasByKind } from "./src/core/conversation/events.js";
import { schemaFingerprint } from "./src/store/log.js";

// The build (see docs/decisions/007-plain-require-and-nodes-compile-cache.md): CommonJS bundles
// that bin/cxc.cjs loads with a plain `require`.
//
// - dist/cxc.cjs: the whole CLI, commander and zod in one bundle. Modules imported dynamically
//   inside it are still evaluated only when used.
// - dist/list.cjs: the same program with `conversation ls` alone, for the most frequent command.
// - dist/query.cjs: the same program with `q` alone, for a turn (src/cli/main-query.ts).
// - dist/hook.cjs: `cxc hook claude-code|codex|gemini`, what an agent runs as its hook, without the
//   command-line parser; its silent path (below the advisor's notice line) reads the
//   configuration and a transcript's tail. Its jobs are dist/hook-jobs.cjs, required like an
//   island when there is work.
// - dist/islands/*.cjs: heavy libraries only some commands need (the provider SDKs, the
//   conversation picker's prompts, execa, ajv), each a bundle of its own that the first `import()`
//   of it loads. A bare `cxc conversation ls` never reads them.
// - Every bundle has a source map whose `sources` are paths relative to it (`../src/…`), without
//   the sources' text: `CXC_DEBUG=1` turns them on, so stack traces name `src/` files and lines.
// - The validation stamp's fingerprint of the event schemas (src/store/log.ts) is computed here
//   once, not by every command that reads a log.
//
// gpt-tokenizer stays in node_modules and is loaded with `require` when a count needs it.

/**
 * Dynamic imports that load an island instead: specifier → the island's entry, its bundle's name
 * and the exports cxc uses.
 */
const ISLANDS: Readonly<Record<string, { entry: string; bundle: string; exports: readonly string[] }>> = {
  "@anthropic-ai/sdk": { entry: "src/llm/islands/anthropic.ts", bundle: "islands/anthropic", exports: ["default"] },
  openai: { entry: "src/llm/islands/openai.ts", bundle: "islands/openai", exports: ["default"] },
  "@google/genai": { entry: "src/llm/islands/google.ts", bundle: "islands/google", exports: ["GoogleGenAI"] },
  "@inquirer/prompts": { entry: "src/cli/terminal/islands/prompts.ts", bundle: "islands/prompts", exports: ["search"] },
  execa: { entry: "src/tools/islands/execa.ts", bundle: "islands/execa", exports: ["execa"] },
  ajv: { entry: "src/tools/islands/ajv.ts", bundle: "islands/ajv", exports: ["Ajv"] },
  // The MCP SDK, for `cxc mcp` alone (src/cli/mcp/server.ts).
  "./mcp-sdk.js": { entry: "src/cli/mcp/mcp-sdk.ts", bundle: "islands/mcp", exports: ["Server", "StdioServerTransport", "CallToolRequestSchema", "ListToolsRequestSchema"] },
  // The hook's jobs (src/cli/hooks/jobs.ts) beside the bundles, so the SDK islands they import
  // resolve from dist/ as from every other bundle.
  "./jobs.js": { entry: "src/cli/hooks/jobs.ts", bundle: "hook-jobs", exports: ["adviseInAgent", "restoreAfterCompaction", "restoreInGeminiRequest", "restoreInOpencode"] },
};

/**
 * Turns the `import()` of each island's specifier into a module that `require`s its bundle, which
 * sits in dist/islands/ beside the bundle that imports it, and passes on the exports cxc uses. The
 * sources keep their ordinary dynamic imports, and vitest runs them unchanged.
 */
const islands: Plugin = {
  name: "cxc-islands",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      const island = ISLANDS[args.path];
      if (args.kind !== "dynamic-import" || !island) return undefined;
      return { path: args.path, namespace: "cxc-island" };
    });
    build.onLoad({ filter: /.*/, namespace: "cxc-island" }, (args) => {
      const island = ISLANDS[args.path]!;
      const exports = island.exports.map((name) =>
        name === "default" ? "export default island.default;" : `export const ${name} = island.${name};`,
      );
      return {
        contents: [`const island = require("./${island.bundle}.cjs");`, ...exports].join("\n"),
        loader: "js",
      };
    });
    build.onResolve({ filter: /^\.\/(?:islands\/|hook-jobs\.cjs$)/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * tsup's `clean` empties all of dist/ (its list only adds patterns; a `!` one is kept): the types
 * of the cxc/advisor entry, which `npm run build:types` writes (tsup.types.config.ts), stay.
 */
const KEEP_TYPES = "!advisor/index.d.ts";

/**
 * dist/pi/extension.js: the pi extension (src/cli/pi/extension.ts), an ES module pi loads itself. pi's
 * own packages stay external: pi resolves them for its extensions at run time.
 */
const piExtension: Options = {
  entry: { "pi/extension": "src/cli/pi/extension.ts" },
  outDir: "dist",
  // The two builds run side by side: each cleans only what it writes.
  clean: ["pi", KEEP_TYPES],
  format: ["esm"],
  // One file: pi loads it by path, and a chunk beside it would be one more file to resolve.
  splitting: false,
  target: "node20",
  platform: "node",
  noExternal: [/^(?!@mariozechner\/|gpt-tokenizer(\/|$))/],
  external: ["@mariozechner/pi-ai", "@mariozechner/pi-coding-agent"],
  sourcemap: true,
  dts: false,
  define: { CXC_EVENT_SCHEMA_FINGERPRINT: JSON.stringify(schemaFingerprint(eventSchemasByKind())) },
  esbuildOptions(options) {
    options.sourcesContent = false;
    options.minifyWhitespace = true;
  },
};

/**
 * dist/advisor/index.js: the package's `cxc/advisor` entry (src/cli/advisor-api.ts), an ES module
 * for users' tests: `advise`, `pickLiveFrom` and the offline `mockDecisionClient`. Its type
 * declarations are built apart (tsup.types.config.ts).
 */
const advisorApi: Options = {
  entry: { "advisor/index": "src/cli/advisor-api.ts" },
  outDir: "dist",
  clean: ["advisor", KEEP_TYPES],
  format: ["esm"],
  splitting: false,
  target: "node20",
  platform: "node",
  noExternal: [/^(?!gpt-tokenizer(\/|$))/],
  sourcemap: true,
  dts: false,
  define: { CXC_EVENT_SCHEMA_FINGERPRINT: JSON.stringify(schemaFingerprint(eventSchemasByKind())) },
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
};

/**
 * dist/opencode/plugin.js: cxc's opencode plugin (src/cli/opencode/plugin.ts), an ES module opencode
 * loads in its own runtime. It holds no cxc code: each job runs `cxc hook opencode`.
 */
const opencodePlugin: Options = {
  entry: { "opencode/plugin": "src/cli/opencode/plugin.ts" },
  outDir: "dist",
  clean: ["opencode", KEEP_TYPES],
  format: ["esm"],
  splitting: false,
  target: "node20",
  platform: "node",
  sourcemap: true,
  dts: false,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
};

export default defineConfig([
  piExtension,
  opencodePlugin,
  advisorApi,
  {
  entry: {
    cxc: "src/cli/main.ts",
    list: "src/cli/main-list.ts",
    query: "src/cli/main-query.ts",
    hook: "src/cli/main-hook.ts",
    ...Object.fromEntries(Object.values(ISLANDS).map(({ entry, bundle }) => [bundle, entry])),
  },
  outDir: "dist",
  // dist/ holds what the last build wrote and nothing else (dist/pi is the extension's build).
  clean: ["*.cjs", "*.cjs.map", "islands", KEEP_TYPES],
  format: ["cjs"],
  outExtension: () => ({ js: ".cjs" }),
  target: "node20",
  platform: "node",
  // Everything but gpt-tokenizer is bundled (tsup leaves dependencies external by default).
  noExternal: [/^(?!gpt-tokenizer(\/|$))/],
  // `import.meta.url` (token-counter's createRequire) in a CommonJS bundle.
  shims: true,
  sourcemap: true,
  dts: false,
  define: { CXC_EVENT_SCHEMA_FINGERPRINT: JSON.stringify(schemaFingerprint(eventSchemasByKind())) },
  esbuildPlugins: [islands],
  esbuildOptions(options) {
    // Stack traces need the mappings and file names only; src/ is in the repository.
    options.sourcesContent = false;
    // Without whitespace and comments, a bundle is smaller and pure ASCII (esbuild escapes the
    // rest), which V8 keeps and scans as a one-byte string; see docs/benchmarks.md.
    options.minifyWhitespace = true;
  },
},
]);
