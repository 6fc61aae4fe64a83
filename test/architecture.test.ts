/**
 * Keeps the functional core pure: nothing under src/core may import node built-ins, SDKs, or the
 * shell layers, nor touch the clock, randomness or the process.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const ALLOWED_PACKAGES = new Set(["zod", "gpt-tokenizer"]);

function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

describe("architecture", () => {
  const coreFiles = sourceFiles(join(root, "src/core"));

  it("finds the core", () => {
    expect(coreFiles.length).toBeGreaterThan(0);
  });

  for (const file of coreFiles) {
    const name = relative(root, file);
    it(`${name} is pure`, () => {
      const source = readFileSync(file, "utf8");
      for (const specifier of importsOf(source)) {
        if (specifier.startsWith(".")) {
          expect(specifier, `${name} imports ${specifier}`).not.toMatch(
            /\.\.\/(store|llm|tools|query|cli)\b|\.\.\/\.\.\//,
          );
          continue;
        }
        expect(ALLOWED_PACKAGES.has(specifier.split("/")[0]!), `${name} imports ${specifier}`).toBe(true);
      }
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      expect(code, `${name} reads the clock`).not.toMatch(/\bDate\.now\(|new Date\(\s*\)|performance\.now\(/);
      expect(code, `${name} uses randomness`).not.toMatch(/Math\.random\(|randomUUID|getRandomValues/);
      expect(code, `${name} touches the process`).not.toMatch(
        /\bprocess\.|\brequire\(|\bBuffer\b|\bglobalThis\b/,
      );
    });
  }
});

describe("layering of the shell", () => {
  // Dependencies point inward: the store, the providers and the tools never reach up into the
  // command line or the turn loop (docs/architecture.md).
  const inner = ["src/store", "src/llm", "src/tools"].flatMap((folder) => sourceFiles(join(root, folder)));
  for (const file of inner) {
    const name = relative(root, file);
    it(`${name} does not import the CLI or the turn loop`, () => {
      // Type-only imports (erased at run time) may name an interface the caller implements.
      const source = readFileSync(file, "utf8").replace(/^import type [^;]*;$/gm, "");
      for (const specifier of importsOf(source)) {
        expect(specifier, `${name} imports ${specifier}`).not.toMatch(/(^|\/)(cli|query)\//);
      }
    });
  }

  it("SDK types stay in src/llm", () => {
    const outside = ["src/core", "src/store", "src/tools", "src/query", "src/cli"].flatMap((folder) =>
      sourceFiles(join(root, folder)),
    );
    for (const file of outside) {
      for (const specifier of importsOf(readFileSync(file, "utf8"))) {
        expect(specifier, `${relative(root, file)} imports ${specifier}`).not.toMatch(
          /^(@anthropic-ai\/sdk|openai)(\/|$)/,
        );
      }
    }
  });
});
