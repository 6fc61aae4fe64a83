/**
 * bin/cxc.cjs runs dist/cxc.cjs and its islands from the V8 code caches the build wrote. These
 * tests check that a built cache is accepted by this Node, that every island loads through the
 * loader with the exports the CLI uses, and that a rejected cache is replaced, not trusted.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";

function inChild(script: string, root = PROJECT_ROOT): unknown {
  const output = execFileSync(process.execPath, ["-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  return JSON.parse(output);
}

const scratch: string[] = [];

/** bin/, dist/ and package.json copied to a temporary directory, to change its caches freely. */
function copyOfTheInstall(): string {
  const root = mkdtempSync(join(tmpdir(), "cxc-code-cache-"));
  scratch.push(root);
  cpSync(join(PROJECT_ROOT, "bin"), join(root, "bin"), { recursive: true });
  cpSync(join(PROJECT_ROOT, "dist"), join(root, "dist"), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, "package.json"), join(root, "package.json"));
  return root;
}

afterEach(() => {
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("the code-cache loader", () => {
  it("runs the CLI bundle and every island from caches this Node accepts", () => {
    const status = inChild(`
      const loader = require("./bin/cxc.cjs");
      const main = loader.loadBundle("cxc.cjs").main;
      const islands = {
        anthropic: typeof loader.loadBundle("islands/sdk/anthropic.cjs").default,
        openai: typeof loader.loadBundle("islands/sdk/openai.cjs").default,
        "node-fetch": typeof loader.loadBundle("islands/sdk/node-fetch.cjs").default,
        markdown: typeof loader.loadBundle("islands/markdown.cjs").createMarkdownRenderer,
        prompts: typeof loader.loadBundle("islands/prompts.cjs").confirm,
        execa: typeof loader.loadBundle("islands/execa.cjs").execa,
        ajv: typeof loader.loadBundle("islands/ajv.cjs").Ajv,
      };
      console.log(JSON.stringify({ main: typeof main, islands, caches: loader.codeCacheStatus() }));
    `) as { main: string; islands: Record<string, string>; caches: { name: string; fromCache: boolean }[] };
    expect(status.main).toBe("function");
    expect(Object.values(status.islands).every((type) => type === "function")).toBe(true);
    expect(status.caches.find((cache) => cache.name === "cxc.cjs")).toEqual({
      name: "cxc.cjs",
      fromCache: true,
    });
    expect(status.caches.find((cache) => cache.name === "islands/sdk/anthropic.cjs")?.fromCache).toBe(true);
  });

  it("keeps the build's cache when run with other flags: that run writes a cache of its own", () => {
    const root = copyOfTheInstall();
    const caches = () =>
      readdirSync(join(root, "dist")).filter(
        (name) => name.startsWith("cxc.cjs.") && name.endsWith(".cache"),
      );
    const before = caches();
    expect(before).toHaveLength(1);
    const built = readFileSync(join(root, "dist", before[0]!));
    execFileSync(process.execPath, ["--stack-size=2000", join(root, "bin", "cxc.cjs"), "--help"], {
      env: { PATH: process.env.PATH ?? "", CXC_HOME: join(root, "home"), HOME: root },
    });
    expect(caches()).toHaveLength(2);
    expect(readFileSync(join(root, "dist", before[0]!)).equals(built)).toBe(true);
  });

  it("says in one line that cxc is not built when dist/ is missing, and exits 1", () => {
    const root = copyOfTheInstall();
    rmSync(join(root, "dist"), { recursive: true, force: true });
    const result = spawnSync(process.execPath, [join(root, "bin", "cxc.cjs"), "conversation", "show"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", CXC_HOME: join(root, "home"), HOME: root },
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `cxc: error: cxc is not built (${join(root, "dist", "cxc.cjs")} is missing)\n` +
        "hint: run `npm run build` in the cxc checkout (`npm ci` builds it too)\n",
    );
  });

  it("rejects a cache that does not fit, runs correctly anyway, and writes a fresh one", () => {
    const root = copyOfTheInstall();
    const suffix = inChild(`console.log(JSON.stringify(require("./bin/cxc.cjs").CACHE_SUFFIX))`) as string;
    expect(suffix).toMatch(
      new RegExp(`^${process.version.replace(/\./g, "\\.")}-${process.arch}-[0-9a-f]{8}\\.cache$`),
    );
    const cache = join(root, "dist", `cxc.cjs.${suffix}`);
    writeFileSync(cache, Buffer.alloc(4096, 7)); // garbage V8 must refuse
    const home = join(root, "home");
    const run = () =>
      execFileSync(process.execPath, [join(root, "bin", "cxc.cjs"), "--help"], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", CXC_HOME: home, HOME: root, NO_COLOR: "1" },
      });
    expect(run()).toMatch(/^Usage: cxc /);
    const rewritten = readFileSync(cache);
    expect(rewritten.equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(readdirSync(join(root, "dist")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const status = inChild(
      `const l = require("./bin/cxc.cjs"); l.loadBundle("cxc.cjs"); console.log(JSON.stringify(l.codeCacheStatus()))`,
      root,
    ) as { name: string; fromCache: boolean }[];
    expect(status).toEqual([{ name: "cxc.cjs", fromCache: true }]);
  });
});
