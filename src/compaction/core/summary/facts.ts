/**
 * The extractors of the summary check (check.ts) and of the facts of a range (range-facts.ts): how
 * a message is split into prose, inline code and code blocks, and how paths, code identifiers,
 * quantities with a unit and the user's binding sentences are recognized in text. Pure. See
 * docs/compaction.md ("The summary check", "What a compaction keeps").
 *
 * Every extractor errs on the side of silence: a word is an identifier only when it has the shape
 * of code (`parse_since`, `parseSince`, `Foo::bar`, `--flag`, `run()`), a number only with a unit,
 * a sentence a constraint only when it binds the work. Words that merely look like code in prose
 * (`macOS`, `github.com`, `I/O`) are for the caller to confirm against the code it saw.
 */

/** A message split into what was written as prose and what was written as code. */
export interface SplitMessage {
  /** The text outside code blocks, URLs blanked; inline code keeps its backticks. */
  readonly prose: string;
  /** The contents of inline code spans (`` `like this` ``). */
  readonly spans: readonly string[];
  /** The contents of fenced code blocks, joined. */
  readonly code: string;
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^[ \t]*\1[ \t]*$|(?![\s\S]))/gm;
const URL = /\b(?:https?|ftp|file):\/\/[^\s<>)\]`'"]+/g;
const INLINE_CODE = /`([^`\n]+)`/g;

/** Splits a message into prose, inline code spans and code blocks; URLs are blanked everywhere. */
export function splitMessage(text: string): SplitMessage {
  const code: string[] = [];
  const prose = text
    .replace(FENCE, (block) => {
      code.push(block.replace(/^[^\n]*\n/, "").replace(/\n[^\n]*$/, ""));
      return "\n\n";
    })
    .replace(URL, " ");
  const spans = [...prose.matchAll(INLINE_CODE)].map((match) => match[1]!.trim());
  return { prose, spans, code: code.join("\n").replace(URL, " ") };
}

// ---------------------------------------------------------------------------------------------
// Paths

const KNOWN_EXTENSIONS = new Set(
  (
    "ts tsx mts cts js mjs cjs jsx json jsonc jsonl json5 md mdx rs toml yaml yml lock txt log py pyi go " +
    "java kt kts swift rb c h cc cpp hpp cs css scss sass less html htm vue svelte sh bash zsh fish ps1 " +
    "sql csv tsv xml svg png jpg jpeg gif webp ico pdf wit abnf proto graphql gql tf hcl nix ini cfg conf " +
    "env sqlite db patch diff snap wasm zig ex exs erl hs ml lua php pl r scala dart gradle cmake mk"
  ).split(" "),
);
/** Web sites whose names end like a file. */
const SITES = new Set(["docs.rs", "lib.rs"].map((site) => site.toLowerCase()));
const PATH_TOKEN = /[\w.@+~/-]*[\w@+~-][\w.@+~/-]*/g;

/** The extension of a path's last segment, lowercased, or undefined. */
function extensionOf(path: string): string | undefined {
  const name = path.split("/").pop() ?? path;
  const match =
    /^[^.].*\.([A-Za-z][A-Za-z0-9]{0,7})$/.exec(name) ?? /^\.[^.]+\.([A-Za-z]\w{0,7})$/.exec(name);
  return match ? match[1]!.toLowerCase() : undefined;
}

/** Whether a path names a file kind cxc knows (`.ts`, `.rs`, `.toml`, …). */
function hasKnownExtension(path: string): boolean {
  const extension = extensionOf(path);
  if (extension === undefined || !KNOWN_EXTENSIONS.has(extension) || SITES.has(path.toLowerCase()))
    return false;
  if (/^[A-Z][a-z]+\.js$/.test(path)) return false; // Node.js, Vue.js: products
  // `self.db`, `config.env`: a field, not a file.
  return path.includes("/") || !/^(?:self|this|ctx|cfg|config|state|app|req|res|e|x)\./.test(path);
}

/** `./src/a.ts:12:3,` → `src/a.ts`: the path without a leading `./`, a trailing `/`, a line suffix. */
export function normalizePath(path: string): string {
  return path
    .trim()
    .replace(/^['"`(]+|['"`),;.]+$/g, "")
    .replace(/(?::\d+)+:?$/, "")
    .replace(/^\.\/(?=.)/, "")
    .replace(/(?<=.)\/+$/, "");
}

/**
 * Whether a string can be a file or directory path worth reporting: no spaces or odd characters,
 * not a device or the temporary directory, not a bare word (`src`), not a fraction (`1/2`) or
 * a sed expression (`s/a/b/`).
 */
export function isPlausiblePath(path: string): boolean {
  if (path.length < 3 || path.length > 300 || path.includes("://") || path.includes("//")) return false;
  if (/[^\w.@+~/-]/.test(path)) return false;
  // Devices, the temporary directory and the system's own programs are not the project's files.
  if (/^\/(?:dev|proc|sys|tmp|usr|bin|sbin|etc|opt|var)(?:\/|$)/.test(path)) return false;
  const segments = path.split("/").filter((segment, index) => !(index === 0 && segment === ""));
  if (segments.some((segment) => segment === "")) return false;
  const named = segments.filter((segment) => segment !== "." && segment !== ".." && segment !== "~");
  if (named.length === 0 || !named.some((segment) => /[A-Za-z]/.test(segment))) return false;
  if (named.length === 1 && !path.includes("/") && extensionOf(path) === undefined) return false;
  if (named.length === 1 && !hasKnownExtension(named[0]!) && !/^[~.]|^\//.test(path)) return false;
  const tiny = named.filter((segment) => segment.length <= 1).length;
  return tiny * 2 < named.length;
}

/** Path-like words of a text: anything with a `/`, or a file name with a known extension. */
export function findPathWords(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    const start = match.index ?? 0;
    if (start > 0 && /[\\:]/.test(text[start - 1]!)) continue;
    const path = normalizePath(match[0]);
    if (!path.includes("/") && !hasKnownExtension(path)) continue;
    if (isPlausiblePath(path)) found.push(path);
  }
  return [...new Set(found)];
}

// ---------------------------------------------------------------------------------------------
// Identifiers

// Product names spelled like code: never reported as identifiers.
const NAMES = new Set(
  (
    "macOS iOS iPadOS watchOS tvOS visionOS iPhone iPad iPod iCloud iTunes eBay GitHub GitLab YouTube " +
    "JavaScript TypeScript CoffeeScript PostgreSQL MySQL SQLite MongoDB MariaDB NoSQL GraphQL OpenAI " +
    "ChatGPT OpenRouter DeepSeek LinkedIn PowerShell WebAssembly WebSocket WebSockets WebGPU OAuth DevOps " +
    "FreeBSD OpenBSD NetBSD NixOS LaTeX VSCode IntelliJ JetBrains HashiCorp DuckDuckGo WordPress PayPal " +
    "HuggingFace MiniLM VitePress VuePress FastAPI NodeJS DynamoDB BigQuery CloudFlare Cloudflare " +
    "DigitalOcean OpenAPI OpenTelemetry ClickHouse RabbitMQ TikTok McDonald MacBook AirPods XCode Xcode " +
    "CodeMirror DevTools PyPI GiB MiB KiB TiB PhD IDs APIs URLs"
  ).split(" "),
);
const CODE_WORD =
  /(?<![\w\\$.:/@#-])(?:--[A-Za-z][\w-]*[A-Za-z0-9]|[A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*(?:\(\))?)/g;
// Top-level domains: `github.com`, `example.org` are hosts, not member accesses.
const HOST_ENDINGS = /\.(?:com|org|net|io|dev|app|ai|co|uk|de|fr|nl|eu|sh|me|gg|xyz|info|edu|gov)$/i;
const ABBREVIATIONS = /^(?:e\.g|i\.e|etc|vs|a\.k\.a|cf|approx|incl)$/i;

/** Whether a word has the shape of code (see the module comment); `value` as written. */
export function isCodeShaped(value: string): boolean {
  const word = value.replace(/\(\)$/, "");
  if (word.length < 3 || NAMES.has(word)) return false;
  if (word.startsWith("--")) return word.length >= 4;
  if (word.includes("::")) return word.split("::").every((part) => /^[A-Za-z_]\w*$/.test(part));
  if (word.includes(".")) {
    const parts = word.split(".");
    if (ABBREVIATIONS.test(word) || HOST_ENDINGS.test(word) || hasKnownExtension(word)) return false;
    if (parts.some((part) => !/^[A-Za-z_$][\w$]*$/.test(part))) return false;
    // `Number.isNaN`, `self.db`, `config.model.id`; not `Mr.Smith`-like prose run-ons.
    return parts.every((part) => !NAMES.has(part)) && parts.length <= 6;
  }
  if (/[A-Za-z0-9]_[A-Za-z0-9]/.test(word)) return /[A-Za-z]/.test(word) && !/^_|_$/.test(word);
  if (/^[A-Z][A-Z0-9]*s$/.test(word)) return false; // APIs, IDs, LLMs
  const lower = /[a-z]/.test(word);
  const upper = (word.match(/[A-Z]/g) ?? []).length;
  if (!lower || upper === 0) return false;
  if (/^[A-Z][a-z0-9]*$/.test(word)) return false; // Capitalized word
  // camelCase (`parseSince`, `nextCursor`) or PascalCase with an inner capital (`BearDb`).
  return (
    /^[a-z][a-z0-9]*[A-Z]/.test(word) || /^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z]|^[A-Z]{2,}[a-z]/.test(word)
  );
}

// Names every program in the language uses; they say nothing about this conversation's code.
const COMMON_NAMES = new Set(
  (
    "is_empty len clone unwrap unwrap_or unwrap_or_else unwrap_or_default map_or map_or_else map_err " +
    "and_then or_else ok_or ok_or_else to_string to_owned into_iter iter iter_mut as_ref as_str as_deref " +
    "as_mut is_some is_none is_ok is_err is_file is_dir to_lowercase to_uppercase push_str starts_with " +
    "ends_with filter_map flat_map for_each assert_eq assert_ne debug_assert to_vec to_path_buf " +
    "as_bytes from_str try_from try_into read_to_string must_use cfg_attr derive_more " +
    "file_name file_stem parent join exists display to_str to_string_lossy read_dir create_dir_all " +
    "canonicalize is_some_and is_none_or map_while take_while skip_while rev chars lines trim split " +
    "toString forEach indexOf includes startsWith endsWith toLowerCase toUpperCase JSON.parse " +
    "JSON.stringify Object.keys Object.values Object.entries Object.assign Array.isArray Array.from " +
    "console.log console.error Promise.all Promise.resolve setTimeout clearTimeout addEventListener " +
    "querySelector querySelectorAll getElementById preventDefault hasOwnProperty parseInt parseFloat " +
    "Math.max Math.min Math.round Math.floor Date.now process.env process.exit serde_json " +
    "thiserror tracing_subscriber"
  ).split(" "),
);
// Types of the standard libraries: `Box::new`, `String::from` are not the project's code.
const COMMON_OWNERS = new Set(
  (
    "std core alloc Box String Vec HashMap HashSet BTreeMap BTreeSet VecDeque Rc Arc Cow Option Result " +
    "Some Ok Err PathBuf Path Duration Instant SystemTime Default Into From AsRef Iterator Utc Local " +
    "Self self Mutex RwLock Cell RefCell File BufReader BufWriter OpenOptions fs io env fmt mem ptr " +
    "thread sync serde serde_json tokio " +
    "anyhow thiserror clap tracing log regex chrono clippy rustfmt"
  ).split(" "),
);

/**
 * The identifier a code-shaped word stands for, or undefined when it is not one worth reporting:
 * a method called on a local (`valid_ids.len()`, `ctx.workspace.try_get_events_mut()`) stands for
 * the method; standard-library names (`is_empty`, `Box::new`, `std::io::Error`) stand for nothing.
 */
export function canonicalIdentifier(value: string): string | undefined {
  let word = value.replace(/\(\)$/, "");
  if (value.endsWith("()") && word.includes(".") && /^[a-z_]/.test(word)) {
    word = word.split(".").pop()!;
  }
  if (!isCodeShaped(word) || COMMON_NAMES.has(word)) return undefined;
  const parts = word.split(/::|\./);
  if (parts.length > 1 && (COMMON_OWNERS.has(parts[0]!) || COMMON_NAMES.has(parts[parts.length - 1]!))) {
    return undefined;
  }
  return word;
}

/** The identifiers of a text (see `canonicalIdentifier`), each once, in order. */
export function findIdentifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(CODE_WORD)) {
    const value = canonicalIdentifier(match[0].replace(/[.]+$/, ""));
    if (value !== undefined) found.push(value);
  }
  return [...new Set(found)];
}

/** Every word of a text as code would spell it, with each `::`/`.` part on its own, normalized. */
export function codeWords(text: string, into: Set<string>): void {
  for (const match of text.matchAll(CODE_WORD)) {
    const value = match[0].replace(/[.]+$/, "");
    into.add(identifierKey(value));
    if (/::|\./.test(value)) for (const part of value.split(/::|\./)) into.add(identifierKey(part));
  }
}

// Where code defines a name: `fn name`, `struct Name`, `pub name:`, `export const name`, `def name`, ….
const DEFINITION =
  /\b(?:fn|struct|enum|trait|type|mod|union|static|macro_rules!|function|class|interface|def|func|(?:export\s+(?:default\s+)?(?:async\s+)?(?:const|let|function|class|interface|type|enum))|pub(?:\([\w:]+\))?\s+(?:const|static|async\s+fn|unsafe\s+fn)?|readonly)\s+([A-Za-z_$][\w$]*)/g;

/** The names the code in a text defines (functions, types, constants, public fields), normalized. */
export function definedNames(text: string, into: Set<string>): void {
  for (const match of text.matchAll(DEFINITION)) into.add(identifierKey(match[1]!));
}

// Local bindings and parameters: `let x`, `let mut x`, `var x`, `fn f(x: &T, y: Vec<u8>)`.
const BINDING =
  /\b(?:let(?:\s+mut)?|var)\s+([a-z_][\w$]*)|[(,]\s*(?:mut\s+)?([a-z_][\w$]*)\s*:\s*(?:&|[A-Z]|impl\b|dyn\b|u\d|i\d|usize|bool|str\b|string\b|number\b)/g;

/** The names code in a text binds as locals or parameters, normalized. */
export function boundNames(text: string, into: Set<string>): void {
  for (const match of text.matchAll(BINDING)) into.add(identifierKey((match[1] ?? match[2])!));
}

// What the assistant says it is about to do: "Let me check `Foo`", "Now I'll look at `bar`".
const NARRATION =
  /^(?:(?:now|ok(?:ay)?|first|next|then|good|great|also)[,.!]?\s+)*(?:let me|let's|i'll|i will|i need to|i want to)\s+(?:also\s+|now\s+|first\s+|quickly\s+)?(?:check|look|see|read|understand|verify|find|inspect|examine|grep|search|review|confirm|trace|explore|open)\b/i;

/** Whether a sentence only narrates what the assistant is about to look at. */
export function isNarration(sentence: string): boolean {
  return NARRATION.test(sentence.replace(/^[*_\s]+/, ""));
}

// Inline code spans in a row: `a`, `a` and `b`, `a`, `b`, or `c`.
const SPANS = String.raw`((?:\`[^\`\n]+\`(?:\s*(?:,|and|or|&)\s*)?)+)`;
// Done removals: "Removed the unused `x`", "replaced `x` with `y`" (only `x`).
const REMOVED_SPANS = new RegExp(
  String.raw`\b(?:removed|deleted|dropped|replaced|renamed)\s+(?:(?:the|a|an|all|its|their|deprecated|unused|old|obsolete|redundant|stale|now-unused)\s+)*` +
    SPANS,
  "gi",
);
// "`x` is no longer used", "`x` was removed", "`x` is deprecated".
const SPANS_REMOVED = new RegExp(
  SPANS +
    String.raw`\s+(?:(?:is|was|were|are|has been|have been|got|now)\s+)+(?:removed|deleted|dropped|replaced|renamed|deprecated|superseded|unused|no longer (?:used|needed|called))\b`,
  "gi",
);
// "the dead `x`", "the unused `x` helper".
const DEAD_SPANS = new RegExp(
  String.raw`\b(?:dead|unused|now-unused|obsolete|deprecated|defunct|removed)\s+` + SPANS,
  "gi",
);
// `old` → `new`.
const ARROW_SPAN = /`([^`\n]+)`\s*(?:→|->)\s*`/g;

/**
 * The identifiers a sentence names, in inline code, as removed or replaced by work that is done:
 * what `removed`, `deleted`, `dropped`, `replaced` or `renamed` takes ("Removed the unused
 * \`helper\`"; "replaced \`x\` with \`y\`": only `x`), what `is no longer used`, `was removed` or
 * `is deprecated`, what is called dead, unused or obsolete, and the old side of an arrow
 * ("\`x\` → \`y\`"). A planned removal ("the fix removes \`x\`", "\`x\` will be removed") is not
 * done. Normalized (see `identifierKey`).
 */
export function supersededNames(sentence: string): Set<string> {
  const names = new Set<string>();
  const old = [
    ...[...sentence.matchAll(REMOVED_SPANS)].map((match) => match[1]!),
    ...[...sentence.matchAll(SPANS_REMOVED)].map((match) => match[1]!),
    ...[...sentence.matchAll(DEAD_SPANS)].map((match) => match[1]!),
    ...[...sentence.matchAll(ARROW_SPAN)].map((match) => `\`${match[1]!}\``),
  ];
  for (const spans of old) for (const name of findIdentifiers(spans)) names.add(identifierKey(name));
  return names;
}

// An import: "Added the `x` import", "import `x`", "imports `x` and `y`".
const IMPORT_SPANS = new RegExp(
  String.raw`\bimports?\s+(?:of\s+)?` + SPANS + "|" + SPANS + String.raw`\s+imports?\b`,
  "gi",
);

/** The identifiers a sentence names, in inline code, as imports ("the \`x\` import"), normalized. */
export function importedNames(sentence: string): Set<string> {
  const names = new Set<string>();
  for (const match of sentence.matchAll(IMPORT_SPANS))
    for (const name of findIdentifiers((match[1] ?? match[2])!)) names.add(identifierKey(name));
  return names;
}

/** How identifiers are compared: lowercased, without `_`, `-` and a trailing `()`. */
export function identifierKey(value: string): string {
  return value.replace(/\(\)$/, "").replace(/^--/, "").toLowerCase().replace(/[_-]/g, "");
}

// ---------------------------------------------------------------------------------------------
// Quantities

/** A number with a unit, as written and as compared. */
export interface Quantity {
  readonly value: string;
  /** `200ms`, `1.8mb`, `3retries`: the number and the unit's canonical spelling. */
  readonly key: string;
  /** `measure`: time, size, share, speed; `count`: tests, files, retries, … */
  readonly measure: "measure" | "count";
}

const UNITS: readonly (readonly [string, string, Quantity["measure"]])[] = [
  ["ns|nanoseconds?", "ns", "measure"],
  ["µs|μs|us|microseconds?", "us", "measure"],
  ["ms|msecs?|milliseconds?", "ms", "measure"],
  ["s|secs?|seconds?", "s", "measure"],
  ["mins?|minutes?", "min", "measure"],
  ["h|hrs?|hours?", "h", "measure"],
  ["days?", "d", "measure"],
  ["weeks?", "w", "measure"],
  ["months?", "mo", "measure"],
  ["years?", "y", "measure"],
  ["bytes?", "b", "measure"],
  ["B", "b", "measure"],
  ["KB|kB|KiB|kb|kilobytes?", "kb", "measure"],
  ["MB|MiB|mb|megabytes?", "mb", "measure"],
  ["GB|GiB|gb|gigabytes?", "gb", "measure"],
  ["TB|TiB|terabytes?", "tb", "measure"],
  ["%|percent", "%", "measure"],
  ["×", "x", "measure"],
  ["tokens?", "tokens", "measure"],
  ["req/s|requests/s|rps|qps|fps|ops/s|Hz|kHz|MHz|GHz", "/s", "measure"],
  ["chars|characters?|words|lines|LOC", "lines", "count"],
  [
    "retries|retry|attempts?|requests?|calls|tests?|files?|turns?|conversations?|events?|items?|entries|" +
      "errors?|warnings?|threads?|workers?|cores?|CPUs?|columns?|rows?|steps?|commits?|crates?|packages?|" +
      "dependencies|deps|messages?|records?|iterations?|notes?|sessions?|processes|tools?",
    "",
    "count",
  ],
];
const QUANTITY = new RegExp(
  String.raw`(?<![\w.,/])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(\s?)([kKM](?=\s?tokens?\b))?\s?(` +
    UNITS.map(([pattern]) => pattern).join("|") +
    String.raw`)(?![\w/])`,
  "g",
);
// `3x faster`: `x` is a unit only before a comparison.
const TIMES =
  /(?<![\w.])(\d+(?:\.\d+)?)x(?=\s+(?:faster|slower|smaller|larger|bigger|more|less|fewer|speed))/g;

function unitOf(written: string): { canonical: string; measure: Quantity["measure"] } | undefined {
  for (const [pattern, canonical, measure] of UNITS) {
    if (new RegExp(`^(?:${pattern})$`).test(written)) {
      return {
        canonical: canonical === "" ? written.toLowerCase().replace(/(?:ies|es|s)$/, "") : canonical,
        measure,
      };
    }
  }
  return undefined;
}

/** Numbers with a unit in a text (`200 ms`, `1.8 MB`, `3 retries`, `40%`), each once, in order. */
export function findQuantities(text: string): Quantity[] {
  const found = new Map<string, Quantity>();
  for (const match of text.matchAll(QUANTITY)) {
    const [whole, number, space, multiplier = "", written] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    const unit = unitOf(written);
    if (unit === undefined) continue;
    // `100% correct` is a manner of speaking, not a share.
    if (
      unit.canonical === "%" &&
      /^\s*(?:correct|right|sure|certain|agree)/i.test(text.slice((match.index ?? 0) + whole.length))
    ) {
      continue;
    }
    // `1990s`, `2024 s`: a year, not a duration; `B` only right after the number (`512B`).
    if (unit.canonical === "s" && /^(?:19|20)\d\d$/.test(number)) continue;
    if (written === "B" && space !== "") continue;
    const key = `${Number(number.replace(/,/g, ""))}${multiplier.toLowerCase()}${unit.canonical}`;
    if (!found.has(key)) found.set(key, { value: whole.trim(), key, measure: unit.measure });
  }
  for (const match of text.matchAll(TIMES)) {
    const key = `${match[1]}x`;
    if (!found.has(key)) found.set(key, { value: `${match[1]}x`, key, measure: "measure" });
  }
  return [...found.values()];
}

// ---------------------------------------------------------------------------------------------
// Constraints

// Prohibitions: an imperative `don't`/`never`, "I don't want", or a modal (`must not`, `should never`).
const PROHIBITION =
  /^(?:please\s+)?never\s+\w+|(?:^|[,;:(]\s*|\b(?:please|and|but|so|also|just|then)\s+)(?:don't|do not|dont)\s+\w+|\b(?:I|we)\s+(?:really\s+)?(?:don't|do not|dont)\s+want\b|\b(?:must not|mustn't|must never|should not|shouldn't|should never|may not|cannot be|can't be|is not allowed|are not allowed)\b|\b(?:want|like|need) to avoid\b|^avoid\b/i;
// Obligations: must, should, make sure, always, required.
const OBLIGATION =
  /\b(?:must|make sure|ensure that|should|required to|has to be|have to be|needs to be)\b|^always\b|\b(?:will|to) always\b/i;
const RESTRICTION =
  /\bonly (?:if|when|use|touch|change|modify|allow|support|search|run|keep|show|apply|add|edit|read|write|return|accept|be)\b|\b(?:should|must|can) only\b|\bwithout (?:changing|breaking|adding|touching|modifying|removing|too much|any|a new|new)\b/i;
// Opinions, guesses and states, not rules: "I don't think", "it must be the parser", "you don't have to".
const NOT_A_RULE =
  /\b(?:I|we|you)(?: really| still| just)? (?:don't|do not|dont) (?:think|know|get|quite|understand|see|remember|believe|care|mind|have to|need to)\b|\bdon't you\b|\bI'm not sure\b|\bmust (?:be the|have been|be because|be a bug)\b|\bshould (?:be fine|work now|be good|be ok|be okay)\b/i;
// A sentence cut off before its list: "Should have a sub-set of features similar to".
const UNFINISHED = /(?::|\b(?:to|of|the|a|an|and|or|with|like|as|for|such as))$/i;

/**
 * The sentences of prose: wrapped lines joined, list items and paragraphs apart; quotes and table
 * rows left out (`keepTables`: table rows and quotes kept, one sentence each).
 */
export function proseSentences(text: string, options: { keepTables?: boolean } = {}): string[] {
  const all = splitMessage(text).prose.split("\n");
  const quoted = (line: string) => /^\s*(?:>|\|)/.test(line);
  const lines = all.filter((line) => !quoted(line));
  if (options.keepTables) return [...sentencesOf(lines), ...all.filter(quoted).map((line) => line.trim())];
  return sentencesOf(lines);
}

function sentencesOf(lines: readonly string[]): string[] {
  const paragraphs: string[] = [];
  let current = "";
  for (const line of lines) {
    const trimmed = line.trim();
    const startsItem = /^(?:[-*+]|\d+[.)]|#+)\s|^\[[ xX]\]/.test(trimmed);
    if (trimmed === "" || startsItem) {
      if (current !== "") paragraphs.push(current);
      current = trimmed;
      continue;
    }
    current = current === "" ? trimmed : `${current} ${trimmed}`;
  }
  if (current !== "") paragraphs.push(current);
  return paragraphs
    .map((paragraph) => paragraph.replace(/^(?:[-*+]|\d+[.)]|#+)\s+/, "").replace(/^\[[ xX]\]\s*/, ""))
    .flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+(?=[A-Z`"'*_([])/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** The user's sentences that bind the work (must, never, don't, always, only if, …). */
export function findConstraints(text: string): string[] {
  return proseSentences(text).filter(
    (sentence) =>
      sentence.length >= 8 &&
      sentence.length <= 300 &&
      !sentence.endsWith("?") &&
      !NOT_A_RULE.test(sentence) &&
      !UNFINISHED.test(sentence) &&
      (PROHIBITION.test(sentence) || OBLIGATION.test(sentence) || RESTRICTION.test(sentence)),
  );
}
