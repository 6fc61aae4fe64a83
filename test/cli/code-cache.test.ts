/**
 * bin/cxc.cjs runs dist/cxc.cjs and its islands from the V8 code caches the build wrote. These
 * tests check that a built cache is accepted by this Node, that every island loads through the
 * loader with the exports the CLI uses, and that a rejected cache is replaced, not trusted.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
afterEach(() => {
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("the code-cache loader", () => {
  it("runs the CLI bundle and every island from caches this Node accepts", () => {
    const status = inChild(`
      const loader = require("./bin/cxc.cjs");
      const main = loader.loadBundle("cxc.cjs").main;
      const islands = {
        anthropic: typeof loader.loadBundle("islands/anthropic.cjs").default,
        openai: typeof loader.loadBundle("islands/openai.cjs").default,
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
    expect(status.caches.find((cache) => cache.name === "islands/anthropic.cjs")?.fromCache).toBe(true);
  });

  it("rejects a cache that does not fit, runs correctly anyway, and writes a fresh one", () => {
    const root = mkdtempSync(join(tmpdir(), "cxc-code-cache-"));
    scratch.push(root);
    cpSync(join(PROJECT_ROOT, "bin"), join(root, "bin"), { recursive: true });
    cpSync(join(PROJECT_ROOT, "dist"), join(root, "dist"), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, "package.json"), join(root, "package.json"));
    const cache = join(root, "dist", "cxc.cjs.cache");
    writeFileSync(cache, Buffer.alloc(4096, 7)); // garbage V8 must refuse
    const home = join(root, "home");
    const run = () =>
      execFileSync(
        process.execPath,
        [join(root, "bin", "cxc.cjs"), "--format", "json", "conversation", "ls"],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", CXC_HOME: home, HOME: root, NO_COLOR: "1" },
        },
      );
    expect(JSON.parse(run())).toEqual([]);
    const rewritten = readFileSync(cache);
    expect(rewritten.equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(existsSync(`${cache}.${process.pid}.tmp`)).toBe(false);
    const status = inChild(
      `const l = require("./bin/cxc.cjs"); l.loadBundle("cxc.cjs"); console.log(JSON.stringify(l.codeCacheStatus()))`,
      root,
    ) as { name: string; fromCache: boolean }[];
    expect(status).toEqual([{ name: "cxc.cjs", fromCache: true }]);
  });
});
