/**
 * The rules of docs/architecture.md, checked on `src/`: the core is pure, nothing imports upward,
 * the store is reached only through its port, SDK types stay in src/llm, and there are no import
 * cycles (type-only ones included). The rules live in test/helpers/architecture.ts; the second
 * half of this file shows that each of them fails on a tiny tree that breaks it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkArchitecture,
  checkCorePurity,
  checkCycles,
  checkLayering,
  checkSdkConfinement,
  checkStoreEntry,
  formatViolations,
  LAYER_RANKS,
  readImports,
  readSourceTree,
  STORE_ENTRY,
  type SourceTree,
  type Violation,
} from "./helpers/architecture.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The files that may load a module with `import()` (issue 40: at most 10): the command registry,
 * the islands' loaders (tsup.config.ts), the hook's jobs and the store's port. docs/architecture.md
 * lists each with why ("Startup stays light").
 */
const DYNAMIC_IMPORT_FILES = [
  "src/cli/commands/index.ts",
  "src/cli/hooks/run-hook.ts",
  "src/cli/mcp/server.ts",
  "src/cli/terminal/island-loaders.ts",
  "src/llm/google.ts",
  "src/llm/openai.ts",
  "src/llm/sdk-options.ts",
  "src/store/index.ts",
  "src/tools/arguments.ts",
  "src/tools/local-command.ts",
];

describe("architecture of src/", () => {
  const tree = readSourceTree(root);

  it("finds every layer and the store's port", () => {
    for (const layer of Object.keys(LAYER_RANKS)) {
      expect(
        [...tree.keys()].some((file) => file.startsWith(`src/${layer}/`)),
        layer,
      ).toBe(true);
    }
    expect(tree.has(STORE_ENTRY)).toBe(true);
    expect(tree.has("src/errors.ts")).toBe(true);
  });

  it("keeps the core pure", () => {
    expect(formatViolations(checkCorePurity(tree))).toBe("");
  });

  it("imports nothing upward", () => {
    expect(formatViolations(checkLayering(tree))).toBe("");
  });

  it("reaches the store only through its port", () => {
    expect(formatViolations(checkStoreEntry(tree))).toBe("");
  });

  it("keeps SDK types in src/llm", () => {
    expect(formatViolations(checkSdkConfinement(tree))).toBe("");
  });

  it("has no import cycles", () => {
    expect(formatViolations(checkCycles(tree))).toBe("");
  });

  it("loads modules with import() only in the files docs/architecture.md lists", () => {
    const loading = [...tree]
      .filter(([file, text]) => readImports(file, text).some((record) => record.kind === "dynamic"))
      .map(([file]) => file)
      .sort();
    expect(loading).toEqual(DYNAMIC_IMPORT_FILES);
    expect(DYNAMIC_IMPORT_FILES.length).toBeLessThanOrEqual(10);
    const documented = readFileSync(`${root}docs/architecture.md`, "utf8");
    for (const file of DYNAMIC_IMPORT_FILES) expect(documented, file).toContain(`\`${file}\``);
  });

  it("would catch, in the real tree, each kind of import the rules exist for", () => {
    const changed = (file: string, line: string): SourceTree =>
      new Map([...tree, [file, `${line}\n${tree.get(file)}`]]);
    expect(messages(checkCorePurity(changed("src/core/conversation/turns.ts", 'import "node:fs";')))).toEqual(
      ["src/core/conversation/turns.ts:1: imports the node built-in node:fs"],
    );
    expect(
      messages(
        checkLayering(
          changed(
            "src/tools/should-i-compact.ts",
            'import type { QueryRequest } from "../query/run-query.js";',
          ),
        ),
      ),
    ).toEqual([
      "src/tools/should-i-compact.ts:1: imports src/query/run-query.ts from an outer layer (tools → query)",
    ]);
    expect(messages(checkCorePurity(changed("src/compaction/core/plan.ts", 'import "node:fs";')))).toEqual([
      "src/compaction/core/plan.ts:1: imports the node built-in node:fs",
    ]);
    expect(
      messages(checkLayering(changed("src/compaction/summaries.ts", 'import "../tools/registry.js";'))),
    ).toEqual([
      "src/compaction/summaries.ts:1: imports src/tools/registry.ts from an outer layer (compaction → tools)",
    ]);
    expect(messages(checkStoreEntry(changed("src/tools/compact.ts", 'import "../store/meta.js";')))).toEqual([
      "src/tools/compact.ts:1: imports src/store/meta.ts: outside src/store, import the store's port src/store/index.ts",
    ]);
    expect(
      messages(
        checkCycles(changed("src/core/position/duration.ts", 'import type { Bound } from "./bound.js";')),
      ),
    ).toEqual([
      expect.stringMatching(
        /^src\/core\/position\/bound\.ts:\d+: import cycle: src\/core\/position\/bound\.ts → src\/core\/position\/duration\.ts → src\/core\/position\/bound\.ts$/,
      ),
    ]);
  });
});

/** A tree from `path: text` pairs. */
function fixture(files: Record<string, string>): SourceTree {
  return new Map(Object.entries(files));
}

function messages(violations: readonly Violation[]): string[] {
  return violations.map((violation) => `${violation.file}:${violation.line}: ${violation.message}`);
}

/** A small tree that keeps every rule; each test below breaks one. */
const CLEAN = {
  "src/errors.ts": "export class CxcError extends Error {}",
  "src/core/events.ts":
    'import * as z from "zod";\nexport const schema = z.object({});\nexport type Event = { type: string };',
  "src/core/turns.ts":
    'import type { Event } from "./events.js";\nexport const count = (events: Event[]) => events.length;',
  "src/store/index.ts":
    'export type { Meta } from "./meta.js";\nexport async function open() { return import("./file.js"); }',
  "src/store/meta.ts":
    'import { readFileSync } from "node:fs";\nexport interface Meta { id: string }\nexport const read = readFileSync;',
  "src/store/file.ts":
    'import "./meta.js";\nimport { count } from "../core/turns.js";\nexport const store = count;',
  "src/llm/client.ts": 'import Anthropic from "@anthropic-ai/sdk";\nexport const client = Anthropic;',
  "src/tools/tool.ts":
    'import type { Meta } from "../store/index.js";\nimport { client } from "../llm/client.js";\nexport type T = Meta;\nexport const c = client;',
  "src/query/loop.ts":
    'import type { T } from "../tools/tool.js";\nimport { CxcError } from "../errors.js";\nexport type L = T;\nexport const e = CxcError;',
  "src/cli/main.ts":
    'import "../query/loop.js";\nconst { open } = await import("../store/index.js");\nexport { open };',
};

describe("the architecture rules", () => {
  it("read every form of module reference with TypeScript's parser", () => {
    const source = [
      'import "node:fs";',
      'import a from "./a.js";',
      'import type { B } from "./b.js";',
      'import { type C, type D } from "./c.js";',
      'import { type E, f } from "./e.js";',
      'export { g } from "./g.js";',
      'export type { H } from "./h.js";',
      'export * from "./star.js";',
      'import i = require("./i.js");',
      'const j = await import("./j.js");',
      'const k = require("./k.js");',
      'type L = typeof import("./l.js");',
      '// import "./comment.js";',
      'const text = "import \\"./string.js\\"";',
    ].join("\n");
    expect(
      readImports("src/core/x.ts", source).map((record) => [record.specifier, record.kind, record.typeOnly]),
    ).toEqual([
      ["node:fs", "side-effect", false],
      ["./a.js", "import", false],
      ["./b.js", "import", true],
      ["./c.js", "import", true],
      ["./e.js", "import", false],
      ["./g.js", "export", false],
      ["./h.js", "export", true],
      ["./star.js", "export", false],
      ["./i.js", "require", false],
      ["./j.js", "dynamic", false],
      ["./k.js", "require", false],
      ["./l.js", "type-query", true],
    ]);
  });

  it("pass a tree that keeps them", () => {
    expect(formatViolations(checkArchitecture(fixture(CLEAN)))).toBe("");
  });

  it("fail on a side-effect import of a node built-in in the core, and on packages and shell folders", () => {
    const tree = fixture({
      ...CLEAN,
      "src/core/turns.ts":
        'import "node:fs";\nimport "path";\nimport "ulid";\nimport type { Meta } from "../store/index.js";',
    });
    expect(messages(checkCorePurity(tree))).toEqual([
      "src/core/turns.ts:1: imports the node built-in node:fs",
      "src/core/turns.ts:2: imports the node built-in path",
      "src/core/turns.ts:3: imports the package ulid",
      "src/core/turns.ts:4: imports ../store/index.js: core imports only the pure layer (core, compaction/core) and shared",
    ]);
  });

  it("fail on the clock, randomness and the process in the core, but not on their names in text", () => {
    const tree = fixture({
      ...CLEAN,
      "src/core/turns.ts": [
        "// Date.now() and process.env in a comment are fine",
        'export const label = "Math.random() in a string is fine";',
        "export const a = Date.now();",
        "export const b = new Date();",
        "export const c = Math.random();",
        "export const d = process.env.HOME;",
        "export const e = globalThis;",
        "export const f = { process: 1 }.process;",
        "export const g = new Date(0);",
      ].join("\n"),
    });
    expect(messages(checkCorePurity(tree))).toEqual([
      "src/core/turns.ts:3: reads the clock (Date.now)",
      "src/core/turns.ts:4: reads the clock (Date())",
      "src/core/turns.ts:5: uses randomness (Math.random)",
      "src/core/turns.ts:6: touches the process or the machine (process)",
      "src/core/turns.ts:7: touches the process or the machine (globalThis)",
    ]);
  });

  it("fail on an upward import, type-only included, and between folders of one rank", () => {
    const tree = fixture({
      ...CLEAN,
      "src/tools/tool.ts": 'import type { L } from "../query/loop.js";\nexport type T = L;',
      "src/llm/client.ts": 'import { store } from "../store/file.js";\nexport const client = store;',
      "src/errors.ts": 'import "./core/events.js";',
    });
    expect(messages(checkLayering(tree))).toEqual([
      "src/errors.ts:1: imports src/core/events.ts from an outer layer (shared → core)",
      "src/llm/client.ts:1: imports src/store/file.ts from a folder of the same rank (llm → store)",
      "src/tools/tool.ts:1: imports src/query/loop.ts from an outer layer (tools → query)",
    ]);
  });

  it("check the compaction slice: its core is pure and below its shell, its shell below tools", () => {
    const tree = fixture({
      ...CLEAN,
      "src/compaction/core/plan.ts":
        'import "node:fs";\nimport { count } from "../../core/turns.js";\nimport "../apply.js";\nexport const n = Date.now() + count([]);',
      "src/compaction/apply.ts":
        'import "./core/plan.js";\nimport "../store/index.js";\nimport "../llm/client.js";\nimport "../tools/tool.js";',
      "src/core/turns.ts":
        'import "../compaction/core/plan.js";\nexport const count = (events: unknown[]) => events.length;',
      "src/store/file.ts": 'import "../compaction/apply.js";\nimport "../compaction/core/plan.js";',
    });
    expect(messages(checkCorePurity(tree))).toEqual([
      "src/compaction/core/plan.ts:1: imports the node built-in node:fs",
      "src/compaction/core/plan.ts:3: imports ../apply.js: compaction/core imports only the pure layer (core, compaction/core) and shared",
      "src/compaction/core/plan.ts:4: reads the clock (Date.now)",
    ]);
    expect(messages(checkLayering(tree))).toEqual([
      "src/store/file.ts:1: imports src/compaction/apply.ts from an outer layer (store → compaction)",
      "src/compaction/core/plan.ts:3: imports src/compaction/apply.ts from an outer layer (compaction/core → compaction)",
      "src/compaction/apply.ts:4: imports src/tools/tool.ts from an outer layer (compaction → tools)",
    ]);
  });

  it("fail on an import of a file that does not exist", () => {
    const tree = fixture({ ...CLEAN, "src/cli/main.ts": 'import "../query/gone.js";' });
    expect(messages(checkLayering(tree))).toEqual([
      "src/cli/main.ts:1: imports ../query/gone.js, which does not exist",
    ]);
  });

  it("fail on a store internal imported from outside the store, type-only and dynamic included", () => {
    const tree = fixture({
      ...CLEAN,
      "src/tools/tool.ts": 'import type { Meta } from "../store/meta.js";\nexport type T = Meta;',
      "src/cli/main.ts": 'const { store } = await import("../store/file.js");\nexport { store };',
    });
    expect(messages(checkStoreEntry(tree))).toEqual([
      "src/tools/tool.ts:1: imports src/store/meta.ts: outside src/store, import the store's port src/store/index.ts",
      "src/cli/main.ts:1: imports src/store/file.ts: outside src/store, import the store's port src/store/index.ts",
    ]);
  });

  it("fail on an SDK outside src/llm", () => {
    const tree = fixture({
      ...CLEAN,
      "src/query/loop.ts": 'import type OpenAI from "openai";\nexport type L = OpenAI;',
    });
    expect(messages(checkSdkConfinement(tree))).toEqual([
      "src/query/loop.ts:1: imports openai: SDK types stay in src/llm",
    ]);
  });

  it("fail on import cycles, type-only ones included, naming the cycle", () => {
    const tree = fixture({
      ...CLEAN,
      "src/core/events.ts":
        'import type { count } from "./turns.js";\nexport type Event = { type: string; n: typeof count };',
      "src/cli/a.ts": 'import "./b.js";',
      "src/cli/b.ts": 'export * from "./c.js";',
      "src/cli/c.ts": 'const a = () => import("./a.js");',
    });
    expect(messages(checkCycles(tree))).toEqual([
      "src/cli/a.ts:1: import cycle: src/cli/a.ts → src/cli/b.ts → src/cli/c.ts → src/cli/a.ts",
      "src/core/events.ts:1: import cycle: src/core/events.ts → src/core/turns.ts → src/core/events.ts",
    ]);
  });
});
