/**
 * Runs the built `bin/cxc` as a user would, in a temporary store.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CXC_BIN = join(PROJECT_ROOT, "bin", "cxc.cjs");

export interface CxcResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface TempHome {
  /** The CXC_HOME directory. */
  readonly home: string;
  /** A working directory outside any workspace. */
  readonly cwd: string;
  /** Environment for a cxc process using this home (no API keys, no colours, UTC). */
  readonly env: Record<string, string>;
  run(
    args: readonly string[],
    options?: { input?: string; env?: Record<string, string>; cwd?: string },
  ): Promise<CxcResult>;
  cleanup(): void;
}

/** A fresh CXC_HOME and working directory; call `cleanup()` in afterEach/afterAll. */
export function makeTempHome(): TempHome {
  const base = mkdtempSync(join(tmpdir(), "cxc-test-"));
  const home = join(base, "home");
  const cwd = join(base, "work");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: join(base, "user"),
    CXC_HOME: home,
    XDG_CONFIG_HOME: join(base, "config"),
    NO_COLOR: "1",
    // Times people read are local; the tests read them in UTC wherever they run.
    TZ: "UTC",
  };
  return {
    home,
    cwd,
    env,
    run: (args, options = {}) =>
      runCxc(args, { env: { ...env, ...options.env }, cwd: options.cwd ?? base, input: options.input }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export async function runCxc(
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; input?: string | undefined },
): Promise<CxcResult> {
  const result = await execa(process.execPath, [CXC_BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    reject: false,
    input: options.input ?? "",
    stripFinalNewline: false,
    timeout: 60_000,
  });
  return { stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? 1 };
}

/**
 * Puts `cxc` on a PATH: a directory holding a `cxc` shim that runs this checkout's bin/cxc.cjs
 * with this Node, as a user's `npm link` or alias would. Returns the directory.
 */
export function cxcShimDirectory(parent: string): string {
  const directory = join(parent, "bin");
  mkdirSync(directory, { recursive: true });
  const shim = join(directory, "cxc");
  writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${CXC_BIN}' "$@"\n`);
  chmodSync(shim, 0o755);
  return directory;
}
