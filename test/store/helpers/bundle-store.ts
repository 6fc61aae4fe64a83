/**
 * Builds the store (from the TypeScript sources) into one self-contained ES module in a temporary
 * directory, so child processes in the crash and concurrency tests run the real store code.
 *
 * Why not dist/: the store exists there only inside the CLI bundle (dist/cxc.cjs), which exports
 * nothing of it. tsup's API with an entry of its own builds it without touching the shared config.
 * The directory is under node_modules/.cache, so packages the store requires lazily resolve.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

export const PROJECT_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The writer child script; see its header for the modes it understands. */
export const WRITER_SCRIPT = join(PROJECT_ROOT, "test", "helpers", "writer-process.mjs");

/** A built store module on disk. */
export interface StoreBundle {
  /** Absolute path of the module exporting the store API (see store-entry.ts). */
  readonly modulePath: string;
  remove(): void;
}

/** Bundles test/store/helpers/store-entry.ts with all its dependencies into a temporary directory. */
export async function bundleStore(): Promise<StoreBundle> {
  // Inside the project, not the system temporary directory: the store loads some packages (ulid)
  // with `require` when first used, and they resolve from node_modules above the bundle.
  const cacheDirectory = join(PROJECT_ROOT, "node_modules", ".cache");
  mkdirSync(cacheDirectory, { recursive: true });
  const outDir = mkdtempSync(join(cacheDirectory, "cxc-store-bundle-"));
  await build({
    entry: { "store-entry": join(PROJECT_ROOT, "test", "store", "helpers", "store-entry.ts") },
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    outExtension: () => ({ js: ".mjs" }),
    noExternal: [/.*/],
    splitting: false,
    sourcemap: false,
    dts: false,
    clean: false,
    silent: true,
    config: false,
  });
  return {
    modulePath: join(outDir, "store-entry.mjs"),
    remove: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
