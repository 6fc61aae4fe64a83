/**
 * Source comments cite the project's own docs (docs/…), never documents outside the repository:
 * the source documents the project started from, reference notes, issue numbers or section
 * numbers of those notes. What such a comment needs belongs in docs/, in the project's words.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Citations of material outside the repository. */
const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\bseeds?\b.{0,3}\bD\d\d\b/i,
  /\bD6[69]\b/,
  /\b(jp )?reference §/i,
  /\breference\/[\w-]+\.md/,
  /(^|[\s(])§\d/,
  /\bissue #?\d+\b/i,
  /\bthe seed('s)?\b/i,
  /\bdesign §/i,
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|cjs|mjs)$/.test(name) ? [path] : [];
  });
}

/** `file:line: text` for every line of `files` citing material outside the repository. */
function outsideCitations(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        if (OUTSIDE_CITATIONS.some((pattern) => pattern.test(line))) {
          found.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
        }
      });
  }
  return found;
}

describe("source comments", () => {
  it("cite docs/, not documents outside the repository", () => {
    const files = ["src", "bin", "scripts"].flatMap((folder) => sourceFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(100);
    expect(outsideCitations(files)).toEqual([]);
  });

  it("would catch each kind of outside citation", () => {
    const samples = [
      " * The review modes (seed D66): starts a review",
      "// the built-in compact tool (D69)",
      " * Plans a run (jp reference §8.2). Pure.",
      "/** Parses `--from` (§5.4). */",
      " * see reference/jp-compaction.md for the format",
      "// fixed for issue 14",
      "/** The verdict (the seed's shape). */",
    ];
    for (const sample of samples) {
      expect(
        OUTSIDE_CITATIONS.some((pattern) => pattern.test(sample)),
        sample,
      ).toBe(true);
    }
    expect(OUTSIDE_CITATIONS.some((pattern) => pattern.test(" * see docs/compaction-model.md"))).toBe(false);
  });
});
