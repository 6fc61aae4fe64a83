/**
 * The rules of docs/architecture.md as functions over a source tree (a map from a path relative to
 * the project root, `src/…`, to the file's text), so test/architecture.test.ts can run them on the
 * real `src/` and on tiny fixtures that must fail.
 *
 * Imports are read with TypeScript's own parser: import and export declarations (type-only ones
 * included), side-effect imports, `import x = require()`, `import()` calls, `require()` calls and
 * `typeof import()` types. Nothing is type-checked, so a whole tree parses in well under a second.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, posix, relative, sep } from "node:path";
import ts from "typescript";

/** A source tree: `src/…` path → text. */
export type SourceTree = ReadonlyMap<string, string>;

export type ImportKind = "import" | "export" | "side-effect" | "require" | "dynamic" | "type-query";

/** One module reference in a file. */
export interface ImportRecord {
  readonly specifier: string;
  readonly kind: ImportKind;
  /** Erased at run time: `import type`, `export type`, every named binding `type`, `typeof import()`. */
  readonly typeOnly: boolean;
  readonly line: number;
}

/** One broken rule: the file, its line, and a sentence. */
export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Reads `src/` (every `.ts` file below it) into a tree keyed by project-relative paths. */
export function readSourceTree(projectRoot: string, folder = "src"): Map<string, string> {
  const tree = new Map<string, string>();
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory).sort()) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts"))
        tree.set(relative(projectRoot, path).split(sep).join("/"), readFileSync(path, "utf8"));
    }
  };
  walk(join(projectRoot, folder));
  return tree;
}

const parsed = new Map<
  string,
  { readonly text: string; readonly source: ts.SourceFile; imports?: ImportRecord[] }
>();

/** The parsed file, reused while its text is the same (every rule reads every file). */
function parseCached(
  file: string,
  text: string,
): { readonly source: ts.SourceFile; imports?: ImportRecord[] } {
  const cached = parsed.get(file);
  if (cached !== undefined && cached.text === text) return cached;
  const entry = {
    text,
    source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
  };
  parsed.set(file, entry);
  return entry;
}

function parse(file: string, text: string): ts.SourceFile {
  return parseCached(file, text).source;
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function stringArgument(call: ts.CallExpression): string | undefined {
  const [first] = call.arguments;
  return first !== undefined && ts.isStringLiteralLike(first) ? first.text : undefined;
}

/** Every module reference of one file. */
export function readImports(file: string, text: string): ImportRecord[] {
  const entry = parseCached(file, text);
  entry.imports ??= collectImports(entry.source);
  return entry.imports;
}

function collectImports(source: ts.SourceFile): ImportRecord[] {
  const found: ImportRecord[] = [];
  const add = (node: ts.Node, specifier: string, kind: ImportKind, typeOnly: boolean): void => {
    found.push({ specifier, kind, typeOnly, line: lineOf(source, node) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (clause === undefined) {
        add(node, node.moduleSpecifier.text, "side-effect", false);
      } else {
        const bindings = clause.namedBindings;
        const allNamedTypeOnly =
          clause.name === undefined &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((element) => element.isTypeOnly);
        add(node, node.moduleSpecifier.text, "import", clause.isTypeOnly || allNamedTypeOnly);
      }
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const allNamedTypeOnly =
        clause !== undefined &&
        ts.isNamedExports(clause) &&
        clause.elements.length > 0 &&
        clause.elements.every((element) => element.isTypeOnly);
      add(node, node.moduleSpecifier.text, "export", node.isTypeOnly || allNamedTypeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, "require", node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const specifier = stringArgument(node);
      if (specifier !== undefined && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        add(node, specifier, "dynamic", false);
      } else if (
        specifier !== undefined &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === "require"
      ) {
        add(node, specifier, "require", false);
      }
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteralLike(argument.literal)) {
        add(node, argument.literal.text, "type-query", true);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names in the tree (`./x.js` → `x.ts`), or undefined. */
export function resolveInTree(tree: SourceTree, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((candidate) => tree.has(candidate));
}

// ---------------------------------------------------------------------------------------------
// Layers

/**
 * Layers, outermost first, with their rank; a file may import only lower ranks. The compaction
 * slice (src/compaction) is cut through them: its shell (the files directly in src/compaction)
 * ranks between tools and (llm, store), and its core (src/compaction/core) is pure, a part of the
 * pure layer with src/core (PURE_LAYERS).
 */
export const LAYER_RANKS: Readonly<Record<string, number>> = {
  cli: 5,
  query: 4,
  tools: 3,
  compaction: 2,
  llm: 1,
  store: 1,
  core: 0,
  "compaction/core": 0,
};

/** The pure layer: no I/O, clock, randomness or SDK; its folders import each other (in no cycle). */
export const PURE_LAYERS: ReadonlySet<string> = new Set(["core", "compaction/core"]);

/**
 * The layer of `src/<folder>/…` (`compaction/core` for the slice's core), `shared` for a file
 * directly in `src/`, undefined outside `src/`.
 */
export function layerOf(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] !== "src") return undefined;
  if (parts.length === 2) return "shared";
  if (parts[1] === "compaction" && parts[2] === "core" && parts.length > 3) return "compaction/core";
  return parts[1];
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0]!);
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly record: ImportRecord;
}

/** Every import of the tree with the file it resolves to (relative specifiers only). */
export function importEdges(tree: SourceTree): { edges: Edge[]; unresolved: Violation[] } {
  const edges: Edge[] = [];
  const unresolved: Violation[] = [];
  for (const [file, text] of tree) {
    for (const record of readImports(file, text)) {
      if (!record.specifier.startsWith(".")) continue;
      const target = resolveInTree(tree, file, record.specifier);
      if (target !== undefined) edges.push({ from: file, to: target, record });
      else if (posix.join(posix.dirname(file), record.specifier).startsWith("src/")) {
        unresolved.push({
          file,
          line: record.line,
          message: `imports ${record.specifier}, which does not exist`,
        });
      }
    }
  }
  return { edges, unresolved };
}

/** Packages core may use (pure libraries). */
const CORE_PACKAGES = new Set(["zod", "jsonc-parser"]);

/**
 * The pure layer (src/core, the compaction slice's core) and the shared leaves in src/ are pure:
 * they import only the pure layer and the shared leaves, no node built-in, no package beyond
 * CORE_PACKAGES, and read no clock, randomness or process.
 */
export function checkCorePurity(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const [file, text] of tree) {
    const layer = layerOf(file);
    const pure = layer !== undefined && PURE_LAYERS.has(layer);
    if (!pure && layer !== "shared") continue;
    for (const record of readImports(file, text)) {
      const where = { file, line: record.line };
      if (record.specifier.startsWith(".")) {
        const target = resolveInTree(tree, file, record.specifier);
        const targetLayer = target === undefined ? undefined : layerOf(target);
        const allowed = pure ? [...PURE_LAYERS, "shared"] : ["shared"];
        if (targetLayer === undefined || !allowed.includes(targetLayer)) {
          const names = pure ? "the pure layer (core, compaction/core) and shared" : "shared";
          violations.push({
            ...where,
            message: `imports ${record.specifier}: ${layer} imports only ${names}`,
          });
        }
      } else if (isBuiltin(record.specifier)) {
        violations.push({ ...where, message: `imports the node built-in ${record.specifier}` });
      } else if (!CORE_PACKAGES.has(packageName(record.specifier))) {
        violations.push({ ...where, message: `imports the package ${record.specifier}` });
      }
    }
    violations.push(...impureReferences(file, text));
  }
  return violations;
}

/** Globals that reach the process or the machine. */
const IMPURE_GLOBALS = new Set(["process", "Buffer", "globalThis", "require", "performance", "crypto"]);

function impureReferences(file: string, text: string): Violation[] {
  const source = parse(file, text);
  const violations: Violation[] = [];
  const report = (node: ts.Node, message: string): void => {
    violations.push({ file, line: lineOf(source, node), message });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const path = `${node.expression.text}.${node.name.text}`;
      if (path === "Date.now") report(node, "reads the clock (Date.now)");
      if (path === "Math.random") report(node, "uses randomness (Math.random)");
    }
    if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "Date" &&
      (node.arguments?.length ?? 0) === 0
    ) {
      report(node, "reads the clock (Date())");
    }
    if (ts.isIdentifier(node) && IMPURE_GLOBALS.has(node.text) && isReference(node)) {
      report(node, `touches the process or the machine (${node.text})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations;
}

/** Whether an identifier is a value reference (not a property name, key or declared name). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) && parent.name === node)
    return false;
  if (
    (ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  if (ts.isTypeReferenceNode(parent)) return false;
  return true;
}

/**
 * Nothing imports upward: a shell file imports its own folder, lower ranks (LAYER_RANKS) and the
 * shared leaves in `src/`; folders of one rank (llm and store) do not import each other, except
 * the folders of the pure layer.
 */
export function checkLayering(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  const { edges, unresolved } = importEdges(tree);
  violations.push(...unresolved);
  for (const { from, to, record } of edges) {
    const source = layerOf(from);
    const target = layerOf(to);
    if (source === undefined || target === undefined || source === target || target === "shared") continue;
    if (PURE_LAYERS.has(source) && PURE_LAYERS.has(target)) continue;
    const sourceRank = source === "shared" ? -1 : LAYER_RANKS[source];
    const targetRank = LAYER_RANKS[target];
    if (sourceRank === undefined || targetRank === undefined) {
      violations.push({
        file: from,
        line: record.line,
        message: `imports ${to}: src/${target} is not in the layer list`,
      });
    } else if (targetRank >= sourceRank) {
      const why = targetRank === sourceRank ? "a folder of the same rank" : "an outer layer";
      violations.push({
        file: from,
        line: record.line,
        message: `imports ${to} from ${why} (${source} → ${target})`,
      });
    }
  }
  return violations;
}

/** The store's entry module: the only file of src/store that other folders may import. */
export const STORE_ENTRY = "src/store/index.ts";

/** Outside src/store, the store is reached only through its entry module (type imports included). */
export function checkStoreEntry(tree: SourceTree): Violation[] {
  return importEdges(tree)
    .edges.filter(
      ({ from, to }) => layerOf(from) !== "store" && layerOf(to) === "store" && to !== STORE_ENTRY,
    )
    .map(({ from, to, record }) => ({
      file: from,
      line: record.line,
      message: `imports ${to}: outside src/store, import the store's port ${STORE_ENTRY}`,
    }));
}

/** SDK types stay in src/llm: no other folder imports a provider SDK. */
export function checkSdkConfinement(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  for (const [file, text] of tree) {
    if (layerOf(file) === "llm") continue;
    for (const record of readImports(file, text)) {
      if (/^(@anthropic-ai\/sdk|openai)(\/|$)/.test(record.specifier)) {
        violations.push({
          file,
          line: record.line,
          message: `imports ${record.specifier}: SDK types stay in src/llm`,
        });
      }
    }
  }
  return violations;
}

/**
 * Import cycles, type-only imports included: one violation per strongly connected component,
 * naming one cycle through it (`a.ts → b.ts → a.ts`).
 */
export function checkCycles(tree: SourceTree): Violation[] {
  const { edges } = importEdges(tree);
  const next = new Map<string, Edge[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge]);
  const components = stronglyConnected([...tree.keys()].sort(), (file) =>
    (next.get(file) ?? []).map((edge) => edge.to),
  );
  const violations: Violation[] = [];
  for (const component of components) {
    const members = new Set(component);
    const self = next.get(component[0]!)?.some((edge) => edge.to === component[0]) ?? false;
    if (component.length === 1 && !self) continue;
    const start = [...members].sort()[0]!;
    const path = cycleThrough(start, members, next);
    const first = (next.get(start) ?? []).find((edge) => edge.to === path[1]);
    violations.push({
      file: start,
      line: first?.record.line ?? 1,
      message: `import cycle: ${path.join(" → ")}`,
    });
  }
  return violations.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Tarjan's algorithm; components in discovery order, members sorted. */
function stronglyConnected(nodes: readonly string[], successors: (node: string) => string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const successor of successors(node)) {
      if (!index.has(successor)) {
        connect(successor);
        low.set(node, Math.min(low.get(node)!, low.get(successor)!));
      } else if (onStack.has(successor)) {
        low.set(node, Math.min(low.get(node)!, index.get(successor)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      components.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return components;
}

/** A shortest cycle from `start` back to it inside one component (breadth first). */
function cycleThrough(
  start: string,
  members: ReadonlySet<string>,
  next: ReadonlyMap<string, Edge[]>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const { to } of next.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Every rule at once. */
export function checkArchitecture(tree: SourceTree): Violation[] {
  return [
    ...checkCorePurity(tree),
    ...checkLayering(tree),
    ...checkStoreEntry(tree),
    ...checkSdkConfinement(tree),
    ...checkCycles(tree),
  ];
}

/** One line per violation, for an assertion message. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations
    .map((violation) => `${violation.file}:${violation.line}: ${violation.message}`)
    .join("\n");
}
