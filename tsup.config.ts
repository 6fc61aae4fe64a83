import { defineConfig } from "tsup";

// One ESM bundle with code splitting: the entry stays small and every command is a
// dynamically imported chunk, so `cxc --version` never loads zod, the SDKs or the store.
//
// commander and zod are bundled into the chunks instead of being imported from node_modules:
// node 20's ESM loader pays per module file (resolve, async read, compile), and zod alone is
// about a hundred files, which cost more start-up time than their code. The provider SDKs are
// bundled for the same reason (hundreds of files each); they sit in chunks that only a request
// to a provider imports. gpt-tokenizer stays external, because the token counter loads it
// synchronously through `require` only when a count is not cached.
export default defineConfig({
  entry: { "cli/main": "src/cli/main.ts", "cli/version": "src/cli/version.ts" },
  outDir: "dist",
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  sourcemap: true,
  noExternal: ["commander", "zod", "@anthropic-ai/sdk", "openai"],
  // Bundled CommonJS (commander) calls `require("node:events")` and friends; an ES module has no
  // `require`, so every chunk gets one.
  banner: {
    js: 'import { createRequire as __cxcCreateRequire } from "node:module";\nconst require = __cxcCreateRequire(import.meta.url);',
  },
  // Not `clean`: end-to-end tests spawn bin/cxc from dist/ while another build may run; chunk
  // names are content hashes, so stale files are harmless.
  clean: false,
  dts: false,
  shims: false,
});
