import { defineConfig } from "tsup";

// The type declarations of the package's `cxc/advisor` entry (dist/advisor/index.d.ts), one
// bundled file. Apart from tsup.config.ts because they take longer than every bundle together:
// `npm run build:types` writes them, and `prepare` (hence `npm pack`) runs it after the build.
export default defineConfig({
  entry: { "advisor/index": "src/cli/advisor-api.ts" },
  outDir: "dist",
  format: ["esm"],
  target: "node20",
  platform: "node",
  clean: false,
  dts: { only: true, entry: { "advisor/index": "src/cli/advisor-api.ts" } },
});
