/**
 * `node:crypto`, loaded on first use rather than with the store: loading it (with the stream
 * modules it brings) costs more than a short command's whole work, and most commands only read
 * (see docs/benchmarks.md).
 */
import { createRequire } from "node:module";

let loaded: typeof import("node:crypto") | undefined;

/** The `node:crypto` module. */
export function nodeCrypto(): typeof import("node:crypto") {
  loaded ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return loaded;
}
