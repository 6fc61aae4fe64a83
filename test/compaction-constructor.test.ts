/**
 * One constructor builds every `compaction` event (`buildCompactionEvent` in
 * src/compaction/core/event.ts): no other source file writes a compaction literal or casts a value
 * to `Compaction` (docs/architecture.md, "Rules the code keeps").
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const CONSTRUCTOR = "src/compaction/core/event.ts";

/**
 * Files that write another agent's own record named `compaction` — not a cxc event — each with
 * the field that only that agent's record has, which must follow every such literal.
 */
const OTHER_FORMATS: Readonly<Record<string, { why: string; field: string }>> = {
  "src/core/interop/pi-export.ts": { why: "pi's own compaction session entry", field: "firstKeptEntryId" },
  "src/core/interop/opencode-export.ts": { why: "opencode's own compaction part", field: "overflow" },
  "src/llm/responses-request.ts": { why: "OpenAI's compaction input item", field: "encrypted_content" },
  "src/llm/anthropic-request.ts": { why: "Anthropic's compaction block", field: "signature" },
};

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
      if (name === CONSTRUCTOR) return;
      const other = OTHER_FORMATS[name];
      if (other === undefined) {
        expect(code, `${name} writes a compaction literal`).not.toMatch(/\btype:\s*"compaction"/);
        return;
      }
      // Exempt only for the other format's record: every such literal carries that format's field.
      const literals = code.match(/\btype:\s*"compaction"/g) ?? [];
      const ofTheFormat = [...code.matchAll(/\btype:\s*"compaction"([^}]*)\}/g)].filter((match) =>
        match[1]!.includes(other.field),
      );
      expect(literals.length, `${name} writes ${other.why}`).toBeGreaterThan(0);
      expect(ofTheFormat.length, `${name}: a compaction literal that is not ${other.why}`).toBe(
        literals.length,
      );
    });
  }
});
