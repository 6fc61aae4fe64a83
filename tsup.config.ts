import type { Plugin } from "esbuild";
import { defineConfig } from "tsup";

// The build (see docs/decisions/004-commonjs-bundles-with-a-code-cache.md):
//
// - dist/cxc.cjs: the whole CLI, commander and zod in one CommonJS bundle. bin/cxc.cjs loads it
//   through `vm.Script` with a V8 code cache (dist/cxc.cjs.cache, written by
//   scripts/warm-code-cache.cjs after the build), so a command compiles almost nothing: Node 20
//   has no compile cache for ES modules, and compiling is most of what a short command costs.
//   Modules inside the bundle that are imported dynamically are still evaluated only when used.
// - dist/islands/*.cjs: heavy libraries only some commands need (the provider SDKs and their
//   HTTP transport node-fetch, the terminal markdown renderer, prompts, execa, ajv), each a
//   bundle of its own with its own code cache, loaded the first time they are imported. A bare
//   `cxc conversation ls` never reads them.
// - Code compiled from a V8 code cache cannot use `import()` on Node 20 (the import callback is
//   lost), so nothing in these bundles may import dynamically from outside: every such import is
//   an island, and scripts/warm-code-cache.cjs fails the build if one slips through (it reads
//   esbuild's metafile). gpt-tokenizer stays in node_modules and is loaded with `require`.

/** Dynamic imports that become islands: specifier → island name and the exports cxc uses. */
const ISLANDS: Readonly<Record<string, { name: string; exports: readonly string[] }>> = {
  "@anthropic-ai/sdk": { name: "sdk/anthropic", exports: ["default"] },
  openai: { name: "sdk/openai", exports: ["default"] },
  "node-fetch": { name: "sdk/node-fetch", exports: ["default"] },
  "./markdown.js": { name: "markdown", exports: ["createMarkdownRenderer"] },
  "@inquirer/prompts": { name: "prompts", exports: ["confirm"] },
  execa: { name: "execa", exports: ["execa"] },
  ajv: { name: "ajv", exports: ["Ajv"] },
};
const ISLAND_SPECIFIERS = new RegExp(
  `^(${Object.keys(ISLANDS)
    .map((specifier) => specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
    .join("|")})$`,
);

/**
 * Resolves the dynamic imports listed in ISLANDS to a small module that loads the island's bundle:
 * through the code-cache loader when bin/cxc.cjs passed one in (`__cxcLoadBundle`, a parameter of
 * the wrapper the bundle runs in), else with a plain `require`.
 */
const islands: Plugin = {
  name: "cxc-islands",
  setup(build) {
    build.onResolve({ filter: ISLAND_SPECIFIERS }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      if (args.path === "./markdown.js" && !/[\\/]src[\\/]cli[\\/]terminal[\\/]/.test(args.importer)) {
        return undefined;
      }
      return { path: args.path, namespace: "cxc-island" };
    });
    build.onLoad({ filter: /.*/, namespace: "cxc-island" }, (args) => {
      const island = ISLANDS[args.path]!;
      const file = `islands/${island.name}.cjs`;
      const exports = island.exports.map((name) =>
        name === "default" ? "export default island.default;" : `export const ${name} = island.${name};`,
      );
      return {
        contents: [
          `const island = typeof __cxcLoadBundle === "function" ? __cxcLoadBundle("${file}") : require("./${file}");`,
          ...exports,
        ].join("\n"),
        loader: "js",
        resolveDir: ".",
      };
    });
    build.onResolve({ filter: /^\.\/islands\// }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * commander loads `node:child_process` (and with it net, dgram and more) when it is loaded, for
 * executable subcommands, which cxc does not have; that is about 3 ms of every command's start.
 * This loads it when commander would first spawn. Fails the build if commander changes the line.
 */
const lazyChildProcess: Plugin = {
  name: "cxc-lazy-child-process",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const { readFile } = await import("node:fs/promises");
      const source = await readFile(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`${args.path}: expected \`${eager}\``);
      const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
  },
};

const common = {
  format: ["cjs" as const],
  target: "node20",
  platform: "node" as const,
  splitting: false,
  sourcemap: true,
  // Not `clean`: end-to-end tests spawn bin/cxc from dist/ while another build may run.
  clean: false,
  dts: false,
  outExtension: () => ({ js: ".cjs" }),
  // Pure ASCII: a bundle that is ASCII is read into a one-byte string, where a single "…" would
  // make V8 decode and hold the whole 0.9 MB source as UTF-16. esbuild escapes non-ASCII in strings;
  // dropping whitespace also drops the comments it keeps (zod has an em dash in one). Stack traces
  // still point into the sources through the source maps. scripts/warm-code-cache.cjs checks it.
  // License comments of bundled packages go to <bundle>.LEGAL.txt beside the bundle.
  esbuildOptions(options: { charset?: string; minifyWhitespace?: boolean; legalComments?: string }) {
    options.charset = "ascii";
    options.minifyWhitespace = true;
    options.legalComments = "external";
  },
};

export default defineConfig([
  {
    ...common,
    // cxc.cjs is the whole CLI; list.cjs is the same program with `conversation ls` alone, which
    // bin/cxc.cjs runs for a listing (the most frequent command, and the one with a 2× budget).
    entry: { cxc: "src/cli/main.ts", list: "src/cli/main-list.ts" },
    outDir: "dist",
    // Everything but the packages below is bundled (tsup leaves dependencies external by default).
    noExternal: [/^(?!gpt-tokenizer(\/|$))/],
    metafile: true,
    // `import.meta.url` (token-counter's createRequire) in a CommonJS bundle.
    shims: true,
    esbuildPlugins: [islands, lazyChildProcess],
  },
  {
    ...common,
    // The provider SDKs and their transport, with node-fetch's `Headers` and `FormData` in place
    // of the globals (see src/llm/islands/fetch-globals.ts).
    entry: {
      anthropic: "src/llm/islands/anthropic.ts",
      openai: "src/llm/islands/openai.ts",
      "node-fetch": "src/llm/islands/node-fetch.ts",
    },
    outDir: "dist/islands/sdk",
    noExternal: [/.*/],
    metafile: true,
    esbuildOptions(options: Parameters<NonNullable<typeof common.esbuildOptions>>[0] & { inject?: string[] }) {
      common.esbuildOptions(options);
      options.inject = ["src/llm/islands/fetch-globals.ts"];
    },
  },
  {
    ...common,
    entry: {
      markdown: "src/cli/terminal/markdown.ts",
      prompts: "src/cli/terminal/islands/prompts.ts",
      execa: "src/tools/islands/execa.ts",
      ajv: "src/tools/islands/ajv.ts",
    },
    outDir: "dist/islands",
    noExternal: [/.*/],
    metafile: true,
  },
]);
