import { defineConfig } from "tsup";

// One ESM bundle with code splitting: the entry stays small and every command is a
// dynamically imported chunk, so `cxc --version` never loads zod, the SDKs or the store.
export default defineConfig({
  entry: { "cli/main": "src/cli/main.ts" },
  outDir: "dist",
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: false,
  shims: false,
});
