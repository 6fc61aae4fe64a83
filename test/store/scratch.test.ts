/**
 * The private scratch directory for summary copies and compact-tool previews: 0700 directories,
 * 0600 files created exclusively under fresh names, no symlink followed, old files cleaned.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCRATCH_MAX_AGE_MS, scratchDirectory, writeScratchFile } from "../../src/store/scratch.js";

let base: string;
let env: Record<string, string>;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-scratch-test-"));
  env = { XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const mode = (path: string): number => statSync(path).mode & 0o777;

describe("writeScratchFile", () => {
  it("writes a 0600 file in 0700 directories under $XDG_CACHE_HOME/cxc/scratch", () => {
    const path = writeScratchFile(env, "conv1-summary-turns-3-6", "text");
    expect(path.startsWith(join(base, "cache", "cxc", "scratch", "conv1-summary-turns-3-6-"))).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("text\n");
    expect(mode(path)).toBe(0o600);
    expect(mode(join(base, "cache", "cxc"))).toBe(0o700);
    expect(mode(join(base, "cache", "cxc", "scratch"))).toBe(0o700);
  });

  it("falls back to ~/.cache when XDG_CACHE_HOME is unset or relative", () => {
    expect(scratchDirectory({ HOME: "/home/u" })).toBe(join("/home/u", ".cache", "cxc", "scratch"));
    expect(scratchDirectory({ HOME: "/home/u", XDG_CACHE_HOME: "relative" })).toBe(
      join("/home/u", ".cache", "cxc", "scratch"),
    );
  });

  it("never overwrites: two writes of the same name are two files", () => {
    const first = writeScratchFile(env, "same", "first");
    const second = writeScratchFile(env, "same", "second");
    expect(second).not.toBe(first);
    expect(readFileSync(first, "utf8")).toBe("first\n");
    expect(readFileSync(second, "utf8")).toBe("second\n");
  });

  it("refuses a planted symlink in place of its directory, writing nothing through it", () => {
    const victim = join(base, "victim");
    mkdirSync(victim);
    mkdirSync(join(base, "cache"));
    symlinkSync(victim, join(base, "cache", "cxc"));
    expect(() => writeScratchFile(env, "x", "secret")).toThrow(/is a symbolic link/);
    expect(readdirSync(victim)).toEqual([]);

    rmSync(join(base, "cache", "cxc"));
    mkdirSync(join(base, "cache", "cxc"));
    symlinkSync(victim, join(base, "cache", "cxc", "scratch"));
    expect(() => writeScratchFile(env, "x", "secret")).toThrow(/is a symbolic link/);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("takes group and other permissions away from an existing directory", () => {
    mkdirSync(join(base, "cache", "cxc", "scratch"), { recursive: true });
    chmodSync(join(base, "cache", "cxc"), 0o755);
    chmodSync(join(base, "cache", "cxc", "scratch"), 0o777);
    writeScratchFile(env, "x", "text");
    expect(mode(join(base, "cache", "cxc"))).toBe(0o700);
    expect(mode(join(base, "cache", "cxc", "scratch"))).toBe(0o700);
  });

  it("removes files older than a day, keeping newer ones and directories", () => {
    const directory = join(base, "cache", "cxc", "scratch");
    const old = writeScratchFile(env, "old", "old");
    const recent = writeScratchFile(env, "recent", "recent");
    mkdirSync(join(directory, "subdirectory"));
    const twoDaysAgo = (Date.now() - 2 * SCRATCH_MAX_AGE_MS) / 1000;
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    utimesSync(join(directory, "subdirectory"), twoDaysAgo, twoDaysAgo);
    writeFileSync(join(directory, "dangling"), "x");
    utimesSync(join(directory, "dangling"), twoDaysAgo, twoDaysAgo);
    const fresh = writeScratchFile(env, "fresh", "fresh");
    expect(existsSync(old)).toBe(false);
    expect(existsSync(join(directory, "dangling"))).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(join(directory, "subdirectory"))).toBe(true);
  });

  it("keeps a stem to safe file-name characters", () => {
    const path = writeScratchFile(env, "../../escape me", "text");
    expect(path.startsWith(join(base, "cache", "cxc", "scratch", ".._.._escape_me-"))).toBe(true);
  });
});
