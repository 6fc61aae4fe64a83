/**
 * How the command starts (bin/cxc.cjs, docs/decisions/007-plain-require-and-nodes-compile-cache.md):
 * a plain `require` of the built bundles, Node's compile cache where Node has one, source maps
 * under CXC_DEBUG=1, and a dist/ that holds only what runs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CXC_BIN, PROJECT_ROOT } from "../helpers/cli.js";

const DIST = join(PROJECT_ROOT, "dist");
/** Node 22.1 and later (`module.enableCompileCache`); @types/node for Node 20 does not declare it. */
const HAS_COMPILE_CACHE = "enableCompileCache" in nodeModule;

const scratch: string[] = [];
afterEach(() => {
  for (const directory of scratch.splice(0)) {
    // A test may have made a directory read-only.
    spawnSync("chmod", ["-R", "u+w", directory]);
    rmSync(directory, { recursive: true, force: true });
  }
});

function temporaryDirectory(label: string): string {
  const directory = mkdtempSync(join(tmpdir(), `cxc-${label}-`));
  scratch.push(directory);
  return directory;
}

/** bin/, dist/ and package.json copied to a temporary directory (node_modules linked), to change freely. */
function copyOfTheInstall(): string {
  const root = temporaryDirectory("install");
  cpSync(join(PROJECT_ROOT, "bin"), join(root, "bin"), { recursive: true });
  cpSync(DIST, join(root, "dist"), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, "package.json"), join(root, "package.json"));
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"));
  return root;
}

/** An environment for one cxc process: a fresh store, home and cache directory. */
function environment(base: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: join(base, "user"),
    CXC_HOME: join(base, "home"),
    XDG_CONFIG_HOME: join(base, "config"),
    XDG_CACHE_HOME: join(base, "cache"),
    NO_COLOR: "1",
    ...extra,
  };
}

function run(bin: string, args: readonly string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env });
}

/** Every file under `directory`, as paths relative to it with `/` separators. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/** The files of the compile cache under `base`/cache (see environment). */
function cacheFiles(base: string): string[] {
  return existsSync(join(base, "cache")) ? filesUnder(join(base, "cache")) : [];
}

describe("bin/cxc.cjs", () => {
  it("is executable, in the checkout and in git's index, so `./bin/cxc.cjs` runs", () => {
    expect(statSync(CXC_BIN).mode & 0o111).toBe(0o111);
    const git = spawnSync("git", ["ls-files", "--stage", "bin/cxc.cjs"], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
    });
    // A checkout without git (an unpacked tarball) has only the file mode to go by.
    if (git.status === 0 && git.stdout !== "") expect(git.stdout).toMatch(/^100755 /);
    const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version;
    expect(execFileSync(CXC_BIN, ["--version"], { encoding: "utf8" })).toBe(`${version}\n`);
  });

  it("says in one line that cxc is not built when dist/ is missing, and exits 1", () => {
    const root = copyOfTheInstall();
    rmSync(join(root, "dist"), { recursive: true, force: true });
    const result = run(join(root, "bin", "cxc.cjs"), ["conversation", "show"], environment(root));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `cxc: error: cxc is not built (${join(root, "dist", "cxc.cjs")} is missing)\n` +
        "hint: run `npm run build` in the cxc checkout (`npm ci` builds it too)\n",
    );
  });
});

describe("a rebuilt bundle", () => {
  it("never runs old code: a rebuilt bundle of the same length runs as rebuilt", () => {
    const root = copyOfTheInstall();
    const bin = join(root, "bin", "cxc.cjs");
    const env = environment(root);
    expect(run(bin, ["--help"], env).stdout).toContain("print the version and exit");
    if (HAS_COMPILE_CACHE) expect(cacheFiles(root).length).toBeGreaterThan(0);
    const bundle = join(root, "dist", "cxc.cjs");
    const source = readFileSync(bundle, "utf8");
    const rebuilt = source.replace("print the version and exit", "print the release and stop");
    expect(Buffer.byteLength(rebuilt)).toBe(Buffer.byteLength(source));
    writeFileSync(bundle, rebuilt);
    expect(run(bin, ["--help"], env).stdout).toContain("print the release and stop");
  });
});

describe("dist/", () => {
  it("holds the bundles and their source maps, nothing else (and the cxc/advisor entry's types once built)", () => {
    const bundles = [
      "cxc.cjs",
      "list.cjs",
      "query.cjs",
      "hook.cjs",
      "hook-jobs.cjs",
      "pi/extension.js",
      "opencode/plugin.js",
      "advisor/index.js",
      ...["ajv", "anthropic", "execa", "google", "mcp", "openai", "prompts"].map(
        (name) => `islands/${name}.cjs`,
      ),
    ];
    // `npm run build:types` writes the entry's declarations; the build keeps them.
    const types = "advisor/index.d.ts";
    const files = filesUnder(DIST).filter((file) => file !== types);
    expect(files).toEqual(bundles.flatMap((bundle) => [bundle, `${bundle}.map`]).sort());
  });

  it("carries the event schemas' fingerprint the build computed (src/store/log.ts)", () => {
    for (const bundle of ["cxc.cjs", "list.cjs", "query.cjs"]) {
      const source = readFileSync(join(DIST, bundle), "utf8");
      expect(source, bundle).toContain("schemaFingerprint");
      expect(source, bundle).not.toContain("CXC_EVENT_SCHEMA_FINGERPRINT");
    }
  });

  it("names no path of the machine that built it", () => {
    for (const file of filesUnder(DIST)) {
      expect({ file, found: readFileSync(join(DIST, file), "utf8").includes(PROJECT_ROOT) }).toEqual({
        file,
        found: false,
      });
    }
  });

  it("has source maps naming the sources by relative paths, without their text", () => {
    for (const file of filesUnder(DIST).filter((name) => name.endsWith(".map"))) {
      const map = JSON.parse(readFileSync(join(DIST, file), "utf8")) as {
        sources: string[];
        sourcesContent?: unknown;
      };
      expect(map.sourcesContent, file).toBeUndefined();
      expect(
        map.sources.filter((source) => source.startsWith("/")),
        file,
      ).toEqual([]);
    }
    const cli = JSON.parse(readFileSync(join(DIST, "cxc.cjs.map"), "utf8")) as { sources: string[] };
    const own = cli.sources.filter((source) => source.startsWith("../src/"));
    expect(own).toContain("../src/cli/main.ts");
    expect(own.filter((source) => !existsSync(join(DIST, source)))).toEqual([]);
  });
});

describe("stack traces under CXC_DEBUG=1", () => {
  /** The frames of the stack trace in stderr: function, file and line. */
  function frames(stderr: string) {
    return [...stderr.matchAll(/^ {4}at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/gm)].map((match) => ({
      name: match[1],
      file: match[2]!,
      line: Number(match[3]),
      column: Number(match[4]),
    }));
  }

  it("point at the src/ file and line that threw", () => {
    const base = temporaryDirectory("debug");
    const result = run(CXC_BIN, ["conversation", "show", "nope"], environment(base, { CXC_DEBUG: "1" }));
    expect(result.status).toBe(1);
    const [top] = frames(result.stderr);
    expect(top?.file).toBe(join(PROJECT_ROOT, "src", "store", "common.ts"));
    const line = readFileSync(top!.file, "utf8").split("\n")[top!.line - 1]!;
    expect(line.slice(top!.column - 1)).toMatch(/^new CxcError\("conversation-not-found"/);
  });

  it("of an internal error name src/ files, never the bundle", () => {
    const base = temporaryDirectory("debug");
    writeFileSync(join(base, "not-a-directory"), "");
    const env = environment(base, { CXC_DEBUG: "1", CXC_HOME: join(base, "not-a-directory") });
    const result = run(CXC_BIN, ["conversation", "ls"], env);
    expect(result.status).toBe(1);
    const ours = frames(result.stderr).filter((frame) => !frame.file.startsWith("node:"));
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter((frame) => frame.file.includes(`${sep}dist${sep}`))).toEqual([]);
    expect(ours.some((frame) => /[\\/]src[\\/]store[\\/].+\.ts$/.test(frame.file))).toBe(true);
  });
});

describe.skipIf(!HAS_COMPILE_CACHE)("Node's compile cache", () => {
  it("is kept under $XDG_CACHE_HOME/cxc, one directory per Node version", () => {
    const base = temporaryDirectory("cache");
    expect(run(CXC_BIN, ["--help"], environment(base)).status).toBe(0);
    const files = cacheFiles(base);
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((file) => file.startsWith(`cxc/${process.version}-`))).toBe(true);
  });

  it("costs only speed when it cannot be written", () => {
    const base = temporaryDirectory("cache");
    const cases: Record<string, () => void> = {
      "a file in its place": () => writeFileSync(join(base, "cache"), ""),
    };
    // Permissions do not stop root.
    if (process.getuid?.() !== 0) {
      cases["a read-only directory"] = () => {
        rmSync(join(base, "cache"), { force: true });
        chmodSync(base, 0o500);
      };
    }
    for (const [name, arrange] of Object.entries(cases)) {
      arrange();
      const result = run(CXC_BIN, ["--help"], environment(base));
      expect({ name, status: result.status, stderr: result.stderr }).toEqual({ name, status: 0, stderr: "" });
      expect(result.stdout).toMatch(/^Usage: cxc /);
    }
  });
});
