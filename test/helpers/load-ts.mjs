/**
 * Loads a self-contained TypeScript helper (one that imports only node built-ins) from plain
 * Node: transpiles it with esbuild (already installed for tsup) into a temporary file and imports
 * that, so scripts run on any Node 20 without type-stripping flags. Used by fake-provider-cli.mjs
 * and scripts/make-agent-fixtures.mjs.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { transform } from "esbuild";

/** Imports the TypeScript module at `sourcePath` (absolute). */
export async function loadTsModule(sourcePath) {
  const source = readFileSync(sourcePath, "utf8");
  const { code } = await transform(source, { loader: "ts", format: "esm", target: "node20" });
  const digest = createHash("sha256").update(code).digest("hex").slice(0, 16);
  const compiledPath = join(tmpdir(), `cxc-${basename(sourcePath, ".ts")}-${digest}.mjs`);
  writeFileSync(compiledPath, code);
  return import(pathToFileURL(compiledPath).href);
}
