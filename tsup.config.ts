import { defineConfig } from "tsup";

// One ESM bundle with code splitting: the entry stays small and every command is a
// dynamically imported chunk, so `cxc --version` never loads zod, the SDKs or the store.
export default defineConfig({
  entry: { "cli/main": "src/cli/main.ts", "cli/version": "src/cli/version.ts" },
  outDir: "dist",
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  sourcemap: true,
  // Not `clean`: end-to-end tests spawn bin/cxc from dist/ while another build may run; chunk
  // names are content hashes, so stale files are harmless.
  clean: false,
  dts: false,
  shims: false,
});
