/**
 * Configuration layers, merged. Pure: no file or environment access (src/store/config.ts reads
 * files and the environment and hands the parsed tables in).
 *
 * A layer is a parsed table plus its origin (a file path, `-c`, an environment variable name, or
 * `default`). Layers merge lowest first: tables merge key by key, while scalars and arrays replace
 * what was there. The lists jp merges (`conversation.compaction.rules` and the automatic
 * compaction's `rules`) are appended to, layer after layer, as jp does; a layer may instead give
 * jp's table form `{ value = [...], strategy = "append" | "prepend" | "replace", dedup = true }`.
 * The built-in default rule is not a layer: it applies only when no layer sets any rule. Every
 * leaf remembers the origin of the layer that set it (an appended list, every contributing
 * origin), for `cxc config show`.
 *
 * Keys are never secrets: a key named like `api_key`, `secret` or `password` is refused, because
 * configuration is printed, copied into conversations and shared; credentials come from the
 * providers' standard environment variables only.
 */

/** A configuration value: what TOML (minus dates, which are kept as strings) can express. */
export type ConfigValue = string | number | boolean | ConfigValue[] | ConfigTable;

/** A configuration table (TOML table, JSON object). */
export interface ConfigTable {
  [key: string]: ConfigValue;
}

/** One layer of configuration and where it came from. */
export interface ConfigLayer {
  /** Shown by `cxc config show`: a file path, `-c`, `env CXC_…`, or `default`. */
  readonly origin: string;
  readonly values: ConfigTable;
}

/** The merged configuration and the origin of every leaf (dotted path → origin). */
export interface MergedConfig {
  readonly values: ConfigTable;
  readonly origins: ReadonlyMap<string, string>;
}

/** One leaf (a scalar or an array) of a merged configuration. */
export interface ConfigLeaf {
  /** Dotted path, e.g. `assistant.model.id`. */
  readonly key: string;
  readonly value: ConfigValue;
  readonly origin: string;
}

/** A `-c KEY=VALUE` assignment, parsed. */
export type ParsedAssignment =
  | { readonly ok: true; readonly path: string[]; readonly value: ConfigValue }
  | { readonly ok: false; readonly message: string };

const KEY_SEGMENT = /^[A-Za-z0-9_-]+$|^\*$/;
const SECRET_SEGMENT = /^(?:.*[_-])?(?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token)$/i;

/** True for a plain table (not an array, not a scalar). */
export function isConfigTable(value: unknown): value is ConfigTable {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when a key segment names a credential (`api_key`, `openai_api_key`, `secret`, `password`). */
export function isSecretKey(segment: string): boolean {
  return SECRET_SEGMENT.test(segment);
}

/** Splits and checks a dotted key (`assistant.model.id`); undefined when it is not a valid key. */
export function parseKeyPath(key: string): string[] | undefined {
  const segments = key.trim().split(".");
  if (segments.length === 0 || !segments.every((segment) => KEY_SEGMENT.test(segment))) return undefined;
  return segments;
}

/**
 * Types a value given on the command line or in the environment the way TOML would read it:
 * `true`/`false` are booleans, decimal numbers are numbers, a quoted text is that text, a value
 * starting with `[` or `{` is parsed as JSON (arrays and tables), anything else is a string.
 * `scalarsOnly` (environment variables) keeps `[`/`{` values as strings.
 */
export function parseConfigScalar(text: string, options: { scalarsOnly?: boolean } = {}): ConfigValue {
  const trimmed = text.trim();
  if (trimmed === "true") return true;
  if (trimmed === "false") return false;
  if (/^[+-]?(?:0|[1-9][0-9_]*)$/.test(trimmed)) return Number(trimmed.replace(/_/g, ""));
  if (/^[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(trimmed)) return Number(trimmed);
  if (trimmed.length >= 2 && /^(["']).*\1$/s.test(trimmed)) {
    if (trimmed.startsWith('"')) {
      try {
        return JSON.parse(trimmed) as string;
      } catch {
        return trimmed.slice(1, -1);
      }
    }
    return trimmed.slice(1, -1);
  }
  if (!options.scalarsOnly && (trimmed.startsWith("[") || trimmed.startsWith("{"))) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed) || isConfigTable(parsed)) return parsed as ConfigValue;
    } catch {
      // Not JSON: fall through and keep the text, which is what the user typed.
    }
  }
  return text;
}

/** Parses `-c KEY=VALUE`. The key is a dotted path; the value is typed by `parseConfigScalar`. */
export function parseAssignment(text: string): ParsedAssignment {
  const equals = text.indexOf("=");
  if (equals <= 0) return { ok: false, message: `'${text}' is not KEY=VALUE` };
  const key = text.slice(0, equals).trim();
  const path = parseKeyPath(key);
  if (!path) {
    return { ok: false, message: `'${key}' is not a valid key (use dotted names like assistant.model.id)` };
  }
  const secret = path.find(isSecretKey);
  if (secret !== undefined) return { ok: false, message: secretKeyMessage(key) };
  return { ok: true, path, value: parseConfigScalar(text.slice(equals + 1)) };
}

/**
 * A `-c` argument as it may be quoted back in a message: the value of an assignment to a
 * credential-like key is replaced by `…`, so a key typed on the command line is never echoed.
 */
export function redactAssignment(text: string): string {
  const equals = text.indexOf("=");
  if (equals <= 0) return text;
  const key = text.slice(0, equals);
  return key.trim().split(".").some(isSecretKey) ? `${key}=…` : text;
}

/** True when `-c VALUE` looks like an assignment (`dotted.key=…`) rather than a file path. */
export function looksLikeAssignment(text: string): boolean {
  const equals = text.indexOf("=");
  return equals > 0 && parseKeyPath(text.slice(0, equals)) !== undefined;
}

/** The message for a credential-like key. */
export function secretKeyMessage(key: string): string {
  return `'${key}' looks like a credential; cxc never reads keys from configuration (use ANTHROPIC_API_KEY / OPENAI_API_KEY)`;
}

/**
 * The dotted path an environment variable sets, or undefined if it is not a configuration
 * variable: `CXC_` followed by segments separated by a double underscore, lowercased, e.g.
 * `CXC_ASSISTANT__MODEL__ID` → `assistant.model.id` and
 * `CXC_CONVERSATION__COMPACTION__REVIEW__MODEL` → `conversation.compaction.review.model`.
 * A variable needs at least two segments, so `CXC_HOME`, `CXC_SESSION` and `CXC_DEBUG` are not
 * configuration.
 */
export function configPathFromEnvironmentName(name: string): string[] | undefined {
  if (!name.startsWith("CXC_")) return undefined;
  const segments = name.slice(4).toLowerCase().split("__");
  if (segments.length < 2) return undefined;
  if (!segments.every((segment) => /^[a-z0-9][a-z0-9_-]*$/.test(segment))) return undefined;
  return segments;
}

/** A table holding only `value` at `path`. */
export function tableAt(path: readonly string[], value: ConfigValue): ConfigTable {
  let result: ConfigValue = value;
  for (let index = path.length - 1; index >= 0; index--) result = { [path[index]!]: result };
  return result as ConfigTable;
}

/**
 * Removes credential-like keys from a table (at any depth) and returns the cleaned table with the
 * dotted paths it removed, so the caller can say which keys it ignored.
 */
export function removeSecretKeys(table: ConfigTable, prefix = ""): { table: ConfigTable; removed: string[] } {
  const cleaned: ConfigTable = {};
  const removed: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isSecretKey(key)) {
      removed.push(path);
      continue;
    }
    if (isConfigTable(value)) {
      const inner = removeSecretKeys(value, path);
      cleaned[key] = inner.table;
      removed.push(...inner.removed);
    } else {
      cleaned[key] = value;
    }
  }
  return { table: cleaned, removed };
}

/** The lists that layers append to rather than replace (jp's mergeable vectors). */
export const MERGEABLE_LISTS: ReadonlySet<string> = new Set([
  "conversation.compaction.rules",
  "conversation.compaction.auto.rules",
]);

/** How a layer changes a mergeable list. */
type ListStrategy = "append" | "prepend" | "replace";

/** Merges layers lowest first and records the origin of every leaf. Inputs are not modified. */
export function mergeConfigLayers(layers: readonly ConfigLayer[]): MergedConfig {
  const values: ConfigTable = {};
  const origins = new Map<string, string>();
  const dedup = new Map<string, boolean>();
  for (const layer of layers) mergeInto(values, layer.values, "", { origin: layer.origin, origins, dedup });
  return { values, origins };
}

/**
 * One layer's merge: its origin, and what the merge keeps across layers: where each leaf came from
 * (by path) and each list's dedup choice (jp's: the layers below decide until one says).
 */
interface LayerMerge {
  readonly origin: string;
  readonly origins: Map<string, string>;
  readonly dedup: Map<string, boolean>;
}

/** A layer's value for a mergeable list: a plain list (appended) or jp's `{ value, strategy, dedup }`. */
function readListChange(
  value: ConfigValue,
): { items: ConfigValue[]; strategy: ListStrategy; dedup?: boolean } | undefined {
  if (Array.isArray(value)) return { items: value, strategy: "append" };
  if (!isConfigTable(value) || !Array.isArray(value.value)) return undefined;
  const strategy = value.strategy ?? "append";
  if (strategy !== "append" && strategy !== "prepend" && strategy !== "replace") return undefined;
  const dedup = value.dedup === true ? true : value.dedup === false ? false : undefined;
  return { items: value.value, strategy, ...(dedup === undefined ? {} : { dedup }) };
}

/** Applies one layer's change to a mergeable list; an unreadable value replaces it (readers report it). */
function mergeList(
  target: ConfigTable,
  key: string,
  value: ConfigValue,
  path: string,
  merge: LayerMerge,
): void {
  const { origin, origins, dedup: dedupByPath } = merge;
  const change = readListChange(value);
  const previous = target[key];
  if (change === undefined || !Array.isArray(previous)) {
    forgetOrigins(origins, path);
    target[key] = cloneValue(change === undefined ? value : change.items);
    origins.set(path, origin);
    if (change?.dedup !== undefined) dedupByPath.set(path, change.dedup);
    if (change !== undefined && dedupByPath.get(path))
      target[key] = withoutDuplicates(target[key] as ConfigValue[]);
    return;
  }
  const items = change.items.map(cloneValue);
  const merged =
    change.strategy === "replace"
      ? items
      : change.strategy === "prepend"
        ? [...items, ...previous]
        : [...previous, ...items];
  // jp: an explicit `dedup` wins, else the list keeps the choice of the layers below.
  const dedup = change.dedup ?? dedupByPath.get(path) ?? false;
  dedupByPath.set(path, dedup);
  target[key] = dedup ? withoutDuplicates(merged) : merged;
  const before = origins.get(path);
  origins.set(path, change.strategy === "replace" || before === undefined ? origin : `${before} + ${origin}`);
}

function withoutDuplicates(items: readonly ConfigValue[]): ConfigValue[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const text = JSON.stringify(item);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

function mergeInto(target: ConfigTable, source: ConfigTable, prefix: string, merge: LayerMerge): void {
  const { origin, origins } = merge;
  for (const [key, value] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (MERGEABLE_LISTS.has(path)) {
      mergeList(target, key, value, path, merge);
      continue;
    }
    const existing = target[key];
    if (isConfigTable(value)) {
      if (!isConfigTable(existing)) {
        // A table replaces a scalar: the scalar's origin no longer describes anything.
        forgetOrigins(origins, path);
        target[key] = {};
      }
      mergeInto(target[key] as ConfigTable, value, path, merge);
      continue;
    }
    forgetOrigins(origins, path);
    target[key] = cloneValue(value);
    origins.set(path, origin);
  }
}

function forgetOrigins(origins: Map<string, string>, path: string): void {
  origins.delete(path);
  for (const key of [...origins.keys()]) if (key.startsWith(`${path}.`)) origins.delete(key);
}

function cloneValue(value: ConfigValue): ConfigValue {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isConfigTable(value)) {
    const copy: ConfigTable = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = cloneValue(inner);
    return copy;
  }
  return value;
}

/** The value at a dotted path (`assistant.model.id`), or undefined. */
export function lookupConfig(values: ConfigTable, key: string | readonly string[]): ConfigValue | undefined {
  const path = typeof key === "string" ? key.split(".") : key;
  let current: ConfigValue | undefined = values;
  for (const segment of path) {
    if (!isConfigTable(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Every leaf of a merged configuration, sorted by key, with its origin. */
export function listConfigLeaves(merged: MergedConfig): ConfigLeaf[] {
  const leaves: ConfigLeaf[] = [];
  const walk = (table: ConfigTable, prefix: string): void => {
    for (const [key, value] of Object.entries(table)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (isConfigTable(value) && Object.keys(value).length > 0) walk(value, path);
      else leaves.push({ key: path, value, origin: merged.origins.get(path) ?? "default" });
    }
  };
  walk(merged.values, "");
  return leaves.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Built-in defaults: the lowest layer. Kept small on purpose; features add their defaults here so
 * `cxc config show` can name `default` as their origin.
 */
export const DEFAULT_CONFIG: ConfigTable = {
  // `conversation.compaction.summary.fallback` has no default here: unset, a model the user asked
  // for aborts and an unattended run falls back (compaction/core/summary/summarizer.ts, `fallbackFor`).
  providers: {
    ollama: { base_url: "http://localhost:11434/v1" },
  },
};
