/**
 * One constructor builds every `compaction` event (`buildCompactionEvent` in
 * src/core/plan-compaction.ts): no other source file writes a compaction literal or casts a value
 * to `Compaction` (docs/architecture.md, "Rules the code keeps").
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const CONSTRUCTOR = "src/core/plan-compaction.ts";

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

describe("compaction events have one constructor", () => {
  const files = sourceFiles(join(root, "src"));

  it("finds the constructor", () => {
    expect(readFileSync(join(root, CONSTRUCTOR), "utf8")).toContain("export function buildCompactionEvent(");
  });

  for (const file of files) {
    const name = relative(root, file).split("\\").join("/");
    it(`${name} builds no compaction by hand`, () => {
      const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      expect(code, `${name} casts to Compaction`).not.toMatch(/\bas Compaction\b/);
      if (name !== CONSTRUCTOR) {
        expect(code, `${name} writes a compaction literal`).not.toMatch(/\btype:\s*"compaction"/);
      }
    });
  }
});
