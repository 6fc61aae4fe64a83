/**
 * One voice (docs/commands.md, Messages), checked on the source where a pattern is reliable:
 * no `(s)` plurals, turn ranges only as `turns A..B` (never `A-B` or `A–B`), no raw error kinds
 * at the head of a warning, and every `docs/….md` a message points at ships in the package
 * (`npm pack --dry-run`). The second half shows each check fails on a line that breaks it. The
 * behaviour of the main messages is tested where they are printed (json-errors, retry, show).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every `.ts` file under src/, as path → text. */
function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(join(root, "src"));
  return files;
}

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

const RULES: readonly Rule[] = [
  // `turn(s)`, `compaction event(s)`: a count is singular or plural (formatCount).
  { name: "an (s) plural", pattern: /[A-Za-z]\(s\)/ },
  // `turns ${a}-${b}`, `turns ${a}–${b}`, `${a}–${b}`: ranges are describeTurnRange's `turns A..B`.
  { name: "a range with a dash", pattern: /turns? \$\{[^}]+\}\s*[-–]\s*\$\{|\$\{[^}]+\}–\$\{/ },
  // `turns 1-17`, `turns 2–5` written out in a message or an example.
  { name: "a written range with a dash", pattern: /turns \d+\s*[-–]\s*\d+/ },
  // `${error.kind}: …`: a warning names the cause in words (describeRetry), not its kind.
  { name: "a raw error kind in a message", pattern: /`\$\{[\w.]*\.kind\}: / },
];

function violations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of files) {
    text.split("\n").forEach((line, index) => {
      for (const rule of RULES)
        if (rule.pattern.test(line)) found.push(`${path}:${index + 1}: ${rule.name}: ${line.trim()}`);
    });
  }
  return found;
}

/** The `docs/NAME.md` paths mentioned in src. */
function mentionedDocs(files: ReadonlyMap<string, string>): Set<string> {
  const mentioned = new Set<string>();
  for (const text of files.values())
    for (const match of text.matchAll(/\bdocs\/[\w./-]+\.md\b/g)) mentioned.add(match[0]);
  return mentioned;
}

describe("the one voice of messages, in src/", () => {
  const files = sourceFiles();

  it("reads the source tree", () => {
    expect(files.size).toBeGreaterThan(50);
    expect(files.has("src/cli/program.ts")).toBe(true);
  });

  it("has no (s) plurals, dashed ranges or raw error kinds", () => {
    expect(violations(files)).toEqual([]);
  });

  it("points only at docs that ship in the package", () => {
    const mentioned = mentionedDocs(files);
    expect(mentioned.size).toBeGreaterThan(3);
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 120_000,
    });
    const packed = new Set(
      (JSON.parse(output) as [{ files: { path: string }[] }])[0].files.map((file) => file.path),
    );
    expect([...mentioned].filter((path) => !packed.has(path))).toEqual([]);
  });
});

/** A line of source quoted as data: `#{` stands for a template placeholder's `${`. */
const source = (text: string): string => text.replaceAll("#{", "${");

describe("the checks catch what they exist for", () => {
  it.each([
    ["turn(s)", "const text = `#{count} turn(s)`;"],
    ["a dashed range", "const text = `turns #{from + 1}-#{to + 1}`;"],
    ["an en-dashed range", "const header = `#{from}–#{to} (summary)`;"],
    ["a written range", '// e.g. "Proposed: compact turns 1-17"'],
    ["a raw kind", "warn(`#{notice.error.kind}: #{notice.error.message}`);"],
  ])("%s", (_name, line) => {
    expect(violations(new Map([["src/example.ts", source(line)]]))).toHaveLength(1);
  });

  it("lets the right spellings through", () => {
    const fine = [
      'const text = `#{formatCount(count, "turn")} and #{describeTurnRange(first, last)}`;',
      '"expected one of: strip (s), strip-requests (sreq)"',
      "const stem = `#{id}-summary-turns-#{from + 1}-#{to + 1}`;",
    ];
    expect(violations(new Map(fine.map((line, index) => [`src/ok${index}.ts`, source(line)])))).toEqual([]);
  });

  it("finds the docs a hint mentions", () => {
    expect([
      ...mentionedDocs(new Map([["a.ts", 'hint: "see docs/query.md or docs/decisions/001-x.md"']])),
    ]).toEqual(["docs/query.md", "docs/decisions/001-x.md"]);
  });
});
