/**
 * cxc's hook entries in an agent's JSON settings, added and taken out as text. Pure, and
 * agent-agnostic: Claude Code's `settings.json`, Codex's `hooks.json` (and any agent whose
 * settings hold `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command",
 * "timeout"?}]}]}}`) go through the same functions; what differs between agents is a
 * `SettingsDialect` (does the agent read a byte-order mark, an empty file, comments).
 *
 * The file is the user's. Every byte that is not cxc's stays as it was (json-text-edit.ts): cxc's
 * entries are inserted as text, in the file's own indentation, line ends and layout, and taken out
 * again with the separator they came with, so install then uninstall gives back the file byte
 * for byte (two exceptions, both meaningless to the agent: an empty `hooks` table or event list
 * that was there before install goes, and an empty root object comes back as `{}`).
 *
 * - **cxc's entries** are recognized by one exact form only: a hook object `{"type": "command",
 *   "command": C}` where C is, word for word, `[NODE] CXC hook AGENT` (`isCxcHookCommand`). A
 *   command that merely mentions `cxc hook …`, or adds anything to it, is the user's.
 * - `installHooks` adds, for each of cxc's entries whose event holds no cxc hook yet, one matcher
 *   group at the end of the event's list (creating the list, or the `hooks` table, at the end of
 *   their parent). A cxc hook already in the file only gets its command updated when it differs
 *   (another path to cxc): a matcher, a timeout or a command of the user's in the same group
 *   stays. Installing twice changes nothing.
 * - `uninstallHooks` removes cxc's hook objects, the groups they leave without hooks, and the event
 *   lists and `hooks` table those leave empty.
 * - A file the agent would not read as cxc reads it is refused with one message naming what is
 *   wrong and where, and nothing is edited: not valid JSON (line and column, quoting nothing), a
 *   byte-order mark or an empty file where the agent refuses them, a key twice in the `hooks`
 *   table's path (`hooks` twice: the agent reads the last one only, or refuses the file), `hooks`
 *   that is not a table of lists, nesting deeper than 256 levels.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { locateJsonError, MAX_JSON_DEPTH, nestsDeeperThan } from "../json-syntax.js";
import {
  appendElement,
  appendProperty,
  type JsonValue,
  removeChild,
  replaceValue,
} from "./json-text-edit.js";

/** One matcher group cxc puts under an event. */
export interface HookEntry {
  readonly event: string;
  /** The agent's matcher (for `SessionStart`: the sources, `startup|resume|clear|compact`). */
  readonly matcher?: string;
  /** Matchers earlier versions of cxc wrote for this entry: a re-install brings them up to date. */
  readonly formerMatchers?: readonly string[];
  readonly command: string;
  /** Seconds the agent waits for the command. */
  readonly timeout?: number;
}

/** A cxc hook command found in a file. */
export interface FoundHook {
  readonly event: string;
  readonly matcher?: string;
  readonly command: string;
}

/** How an agent reads its settings file, where agents differ. */
export interface SettingsDialect {
  /** The agent's name, for messages (`Claude Code`). */
  readonly agent: string;
  /** The agent reads a file that starts with a byte-order mark (cxc keeps the mark). */
  readonly bom: boolean;
  /** The agent reads an empty (or blank) file as no settings. */
  readonly emptyIsNone: boolean;
  /** The agent's parser skips `//` and `/* *\/` comments. */
  readonly comments: boolean;
  /** What the agent does with a key written twice: keeps the last, or refuses the file. */
  readonly duplicates: "last" | "refused";
}

/** What every edit needs: which commands are cxc's, how the agent reads the file, its name. */
export interface SettingsOptions {
  readonly isOurs: (command: string) => boolean;
  readonly dialect: SettingsDialect;
  /** The file's name in messages. */
  readonly label: string;
}

/** The outcome of an edit: the new text and what changed, or why the file was refused. */
export type SettingsEdit =
  | {
      readonly ok: true;
      readonly text: string;
      readonly changed: boolean;
      /** Events whose cxc entry was added or updated (install) or removed (uninstall). */
      readonly events: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

const BOM = "\uFEFF";

// ---------------------------------------------------------------------------------------------
// The command's exact form
// ---------------------------------------------------------------------------------------------

/** A word as the command's form writes it: bare when it holds only plain path characters. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The command cxc installs: `NODE CXC hook AGENT`, Node and cxc's bin by absolute paths (so it runs
 * whatever the agent's `PATH` holds), each quoted only when it needs to be.
 */
export function cxcHookCommand(agent: string, node: string, bin: string): string {
  return `${shellWord(node)} ${shellWord(bin)} hook ${agent}`;
}

/**
 * The words of a command line in the simple shell syntax cxc's form uses, or undefined when it
 * holds anything else (an operator, a variable, a glob, an unbalanced quote): words separated by
 * spaces or tabs, each made of bare pieces (`[\w./@%+=:,-]`), single-quoted pieces (`'\''` for a
 * quote inside), double-quoted pieces without `$`, backquote or backslash, and a backslash before a
 * quote, a backslash or a space.
 */
function simpleWords(command: string): string[] | undefined {
  const words: string[] = [];
  const pattern = /[ \t]*(?:([\w./@%+=:,-]+)|'([^']*)'|"([^"$`\\]*)"|\\(['"\\ ]))/y;
  let at = 0;
  let word: string | undefined;
  const trimmed = command.trimEnd();
  while (at < trimmed.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(trimmed);
    if (match === null) return undefined;
    const piece = match[1] ?? match[2] ?? match[3] ?? match[4] ?? "";
    const glued = at > 0 && !/^[ \t]/.test(trimmed.slice(at));
    if (glued && word !== undefined) word += piece;
    else {
      if (word !== undefined) words.push(word);
      word = piece;
    }
    at = pattern.lastIndex;
  }
  if (word !== undefined) words.push(word);
  return words;
}

const isAbsolutePath = (word: string): boolean => word.startsWith("/") || /^[A-Za-z]:[\\/]/.test(word);
const baseName = (word: string): string =>
  word.slice(Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\")) + 1);

/**
 * Whether `command` is cxc's hook for `agent`, in its one documented form (docs/inside-agents.md):
 * exactly the words `[NODE] CXC hook AGENT`, where CXC is `cxc` or an absolute path to a file named
 * `cxc`, `cxc.cjs` or `cxc.js`, and NODE (when present) is `node` or an absolute path to a file
 * whose name starts with `node`. Nothing before, nothing after, no other shell syntax: `say "cxc
 * hook claude-code finished"` and `cxc hook claude-code --verbose` are the user's commands.
 */
export function isCxcHookCommand(command: string, agent: string): boolean {
  const words = simpleWords(command);
  if (words === undefined || words.length < 3 || words.length > 4) return false;
  const [hook, name] = words.slice(-2);
  if (hook !== "hook" || name !== agent) return false;
  const cxc = words.at(-3)!;
  const isCxc =
    cxc === "cxc" || (isAbsolutePath(cxc) && ["cxc", "cxc.cjs", "cxc.js"].includes(baseName(cxc)));
  if (!isCxc) return false;
  if (words.length === 3) return true;
  const node = words[0]!;
  return node === "node" || (isAbsolutePath(node) && baseName(node).startsWith("node"));
}

// ---------------------------------------------------------------------------------------------
// Reading the file
// ---------------------------------------------------------------------------------------------

/** A settings text the agent reads: its mark, its JSON text, and the tree of that. */
interface SettingsText {
  readonly bom: string;
  readonly body: string;
  /** Undefined for an empty file the agent reads as no settings. */
  readonly root: Node | undefined;
}

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split("\n").length;

function propertyNamed(object: Node | undefined, key: string): Node | undefined {
  return object?.children?.findLast((property) => property.children?.[0]?.value === key);
}

const valueNode = (property: Node | undefined): Node | undefined => property?.children?.[1];

/** The first key an object (in the `hooks` path) holds twice, with the lines of both. */
function duplicateIn(body: string, object: Node, path: string): string | undefined {
  const seen = new Map<string, Node>();
  for (const property of object.children ?? []) {
    const key = String(property.children?.[0]?.value);
    const first = seen.get(key);
    if (first !== undefined) {
      const name = path === "" ? key : `${path}.${key}`;
      return `\`${name}\` twice (lines ${lineOf(body, first.offset)} and ${lineOf(body, property.offset)})`;
    }
    seen.set(key, property);
  }
  return undefined;
}

/** Every object under `node` with a key twice, as one message (the first found). */
function duplicateUnder(body: string, node: Node | undefined, path: string): string | undefined {
  if (node === undefined) return undefined;
  if (node.type === "object") {
    const here = duplicateIn(body, node, path);
    if (here !== undefined) return here;
    for (const property of node.children ?? []) {
      const key = String(property.children?.[0]?.value);
      const found = duplicateUnder(body, valueNode(property), `${path}.${key}`);
      if (found !== undefined) return found;
    }
  } else if (node.type === "array") {
    for (const [index, child] of (node.children ?? []).entries()) {
      const found = duplicateUnder(body, child, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const SYNTAX_WORDS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':' after a property name",
  CommaExpected: "expected ',' or a closing bracket",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "unexpected text after the end",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string",
};

/** Checks `text` the way the agent reads it (see the module comment). */
function readSettingsText(text: string, options: SettingsOptions): Read<SettingsText> {
  const { dialect, label } = options;
  const bom = text.startsWith(BOM) ? BOM : "";
  const body = text.slice(bom.length);
  const refuse = (error: string): Read<SettingsText> => ({ ok: false, error: `${label} ${error}` });
  if (bom !== "" && !dialect.bom) {
    return refuse(
      `starts with a byte-order mark (U+FEFF), which ${dialect.agent} does not read: remove it (the file's first three bytes)`,
    );
  }
  if (body.trim() === "") {
    if (dialect.emptyIsNone) return { ok: true, value: { bom, body, root: undefined } };
    return refuse(`is an empty file, which ${dialect.agent} does not read: write {} in it, or delete it`);
  }
  if (nestsDeeperThan(body, MAX_JSON_DEPTH, { lines: false })) {
    return refuse(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { disallowComments: !dialect.comments, allowTrailingComma: false });
  if (!dialect.comments) {
    const syntax = locateJsonError(body);
    if (syntax !== undefined) {
      return refuse(`is not valid JSON (line ${syntax.line}, column ${syntax.column}: ${syntax.reason})`);
    }
  } else if (errors.length > 0) {
    const first = errors[0]!;
    const before = body.slice(0, first.offset);
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    const reason = SYNTAX_WORDS[printParseErrorCode(first.error)] ?? "invalid JSON";
    return refuse(`is not valid JSON (line ${line}, column ${column}: ${reason})`);
  }
  if (root === undefined || root.type !== "object") return refuse("does not hold a JSON object");
  const twice =
    dialect.duplicates === "last"
      ? `${dialect.agent} reads only the last one: merge them into one`
      : `${dialect.agent} refuses such a file: merge them into one`;
  const hookProperties = (root.children ?? []).filter(
    (property) => property.children?.[0]?.value === "hooks",
  );
  if (hookProperties.length > 1) {
    const lines = hookProperties.map((property) => lineOf(body, property.offset)).join(" and ");
    return refuse(`has \`hooks\` twice (lines ${lines}); ${twice}`);
  }
  const hooks = valueNode(hookProperties[0]);
  if (hooks === undefined) return { ok: true, value: { bom, body, root } };
  if (hooks.type !== "object") return refuse("has `hooks` that is not a table of events");
  for (const property of hooks.children ?? []) {
    if (valueNode(property)?.type !== "array") {
      return refuse(`has \`hooks.${String(property.children?.[0]?.value)}\` that is not a list`);
    }
  }
  const duplicate = duplicateUnder(body, hooks, "hooks");
  if (duplicate !== undefined) {
    return refuse(`has ${duplicate}; ${twice}`);
  }
  return { ok: true, value: { bom, body, root } };
}

/** One of cxc's hook objects in the file: where it is and what it runs. */
interface CxcHookSpot {
  readonly event: string;
  readonly matcher?: string;
  readonly command: string;
  readonly commandNode: Node;
  /** The event's list, the group in it, the group's `hooks` list, the hook in that. */
  readonly groups: Node;
  readonly groupIndex: number;
  readonly hooks: Node;
  readonly hookIndex: number;
}

/** cxc's hook objects in the file, in the file's order. */
function cxcSpots(root: Node | undefined, isOurs: (command: string) => boolean): CxcHookSpot[] {
  const spots: CxcHookSpot[] = [];
  const table = valueNode(propertyNamed(root, "hooks"));
  for (const property of table?.children ?? []) {
    const event = String(property.children?.[0]?.value);
    const groups = valueNode(property)!;
    for (const [groupIndex, group] of (groups.children ?? []).entries()) {
      if (group.type !== "object") continue;
      const hooks = valueNode(propertyNamed(group, "hooks"));
      if (hooks?.type !== "array") continue;
      const matcher = valueNode(propertyNamed(group, "matcher"));
      for (const [hookIndex, hook] of (hooks.children ?? []).entries()) {
        if (hook.type !== "object" || valueNode(propertyNamed(hook, "type"))?.value !== "command") continue;
        const commandNode = valueNode(propertyNamed(hook, "command"));
        if (commandNode?.type !== "string" || !isOurs(commandNode.value as string)) continue;
        spots.push({
          event,
          ...(matcher?.type === "string" ? { matcher: matcher.value as string } : {}),
          command: commandNode.value as string,
          commandNode,
          groups,
          groupIndex,
          hooks,
          hookIndex,
        });
      }
    }
  }
  return spots;
}

/** Re-reads a text this module produced (it is valid by construction). */
function reread(body: string): Node {
  return parseTree(body, [], { disallowComments: false })!;
}

// ---------------------------------------------------------------------------------------------
// The edits
// ---------------------------------------------------------------------------------------------

function groupOf(entry: HookEntry): JsonValue {
  const hook: Record<string, JsonValue> = { type: "command", command: entry.command };
  if (entry.timeout !== undefined) hook.timeout = entry.timeout;
  return entry.matcher === undefined ? { hooks: [hook] } : { matcher: entry.matcher, hooks: [hook] };
}

/** The cxc hooks a settings text holds, or why it cannot be read. */
export function findHooks(text: string, options: SettingsOptions): Read<FoundHook[]> {
  const read = readSettingsText(text, options);
  if (!read.ok) return read;
  return {
    ok: true,
    value: cxcSpots(read.value.root, options.isOurs).map(({ event, matcher, command }) => ({
      event,
      ...(matcher === undefined ? {} : { matcher }),
      command,
    })),
  };
}

/**
 * `text` with cxc's `entries` added (see the module comment). `text` undefined is a file that does
 * not exist yet (and an empty one that the agent reads as none): it is written as a new JSON object
 * holding only the hooks, two spaces deep, as the agents write their own.
 */
export function installHooks(
  text: string | undefined,
  entries: readonly HookEntry[],
  options: SettingsOptions,
): SettingsEdit {
  const read = text === undefined ? undefined : readSettingsText(text, options);
  if (read !== undefined && !read.ok) return read;
  if (read === undefined || read.value.root === undefined) {
    const hooks: Record<string, JsonValue[]> = {};
    for (const entry of entries) hooks[entry.event] = [...(hooks[entry.event] ?? []), groupOf(entry)];
    return {
      ok: true,
      text: `${read?.value.bom ?? ""}${JSON.stringify({ hooks }, null, 2)}\n`,
      changed: true,
      events: [...new Set(entries.map((entry) => entry.event))],
    };
  }
  const { bom } = read.value;
  let body = read.value.body;
  const events: string[] = [];
  // cxc's hooks already there: only a command that runs another cxc is brought up to date (the
  // last first, so the offsets before it hold).
  const spots = cxcSpots(read.value.root, options.isOurs);
  const commandFor = (event: string): string =>
    (entries.find((entry) => entry.event === event) ?? entries[0])?.command ?? "";
  for (const spot of [...spots].reverse()) {
    if (spot.command === commandFor(spot.event)) continue;
    body = replaceValue(body, read.value.root, spot.commandNode, commandFor(spot.event));
    events.unshift(spot.event);
  }
  // A group that holds cxc's hook alone, with a matcher an earlier cxc wrote (`SessionStart`
  // `compact`, before it ran at every start), gets this cxc's; a matcher of the user's stays.
  for (const entry of entries) {
    if (entry.matcher === undefined) continue;
    const root = reread(body);
    const spot = cxcSpots(root, options.isOurs).find((candidate) => candidate.event === entry.event);
    if (spot?.matcher === undefined || !entry.formerMatchers?.includes(spot.matcher)) continue;
    if ((spot.hooks.children ?? []).length !== 1) continue;
    const matcher = valueNode(propertyNamed(spot.groups.children?.[spot.groupIndex], "matcher"))!;
    body = replaceValue(body, root, matcher, entry.matcher);
    if (!events.includes(entry.event)) events.push(entry.event);
  }
  for (const entry of entries) {
    if (spots.some((spot) => spot.event === entry.event)) continue;
    const root = reread(body);
    const table = propertyNamed(root, "hooks");
    const list = valueNode(propertyNamed(valueNode(table), entry.event));
    if (table === undefined)
      body = appendProperty(body, root, root, "hooks", { [entry.event]: [groupOf(entry)] });
    else if (list === undefined)
      body = appendProperty(body, root, valueNode(table)!, entry.event, [groupOf(entry)]);
    else body = appendElement(body, root, list, groupOf(entry));
    events.push(entry.event);
  }
  const edited = bom + body;
  return { ok: true, text: edited, changed: edited !== text, events: [...new Set(events)] };
}

/** `text` without cxc's hooks and what they leave empty (see the module comment). */
export function uninstallHooks(text: string, options: SettingsOptions): SettingsEdit {
  const read = readSettingsText(text, options);
  if (!read.ok) return read;
  const { bom } = read.value;
  let body = read.value.body;
  if (read.value.root === undefined) return { ok: true, text, changed: false, events: [] };
  const found = cxcSpots(read.value.root, options.isOurs);
  const events = new Set(found.map((spot) => spot.event));
  // The last spot first, re-reading after each removal (settings files are small).
  for (let left = found.length; left > 0; left--) {
    const spot = cxcSpots(reread(body), options.isOurs).at(-1);
    if (spot === undefined) break;
    body =
      (spot.hooks.children ?? []).length === 1
        ? removeChild(body, spot.groups, spot.groupIndex)
        : removeChild(body, spot.hooks, spot.hookIndex);
  }
  for (const event of events) {
    const table = valueNode(propertyNamed(reread(body), "hooks"))!;
    const index = (table.children ?? []).findLastIndex((property) => property.children?.[0]?.value === event);
    if (index >= 0 && (valueNode(table.children![index])?.children ?? []).length === 0) {
      body = removeChild(body, table, index);
    }
  }
  if (events.size > 0) {
    const root = reread(body);
    const index = (root.children ?? []).findLastIndex(
      (property) => property.children?.[0]?.value === "hooks",
    );
    if (index >= 0 && (valueNode(root.children![index])?.children ?? []).length === 0) {
      body = removeChild(body, root, index);
    }
  }
  const edited = bom + body;
  return { ok: true, text: edited, changed: edited !== text, events: [...events] };
}

/**
 * Claude Code's settings files, as the pinned Claude Code (agents/) reads them (checked by running
 * it): a byte-order mark is skipped, an empty file is no settings, `hooks` twice: the last one
 * counts.
 */
export const CLAUDE_CODE_SETTINGS: SettingsDialect = {
  agent: "Claude Code",
  bom: true,
  emptyIsNone: true,
  comments: false,
  duplicates: "last",
};

/**
 * Codex's `hooks.json`, as the pinned Codex (agents/codex) reads it (serde_json, checked by running
 * it): a byte-order mark, an empty file and a key twice each fail the whole file.
 */
export const CODEX_HOOKS_SETTINGS: SettingsDialect = {
  agent: "Codex",
  bom: false,
  emptyIsNone: false,
  comments: false,
  duplicates: "refused",
};

/**
 * Gemini CLI's `settings.json`, as the pinned Gemini CLI (agents/) reads it: comments stripped,
 * then `JSON.parse`, so a byte-order mark and an empty file make the file unreadable to it, and a
 * key twice keeps the last.
 */
export const GEMINI_SETTINGS: SettingsDialect = {
  agent: "Gemini CLI",
  bom: false,
  emptyIsNone: false,
  comments: true,
  duplicates: "last",
};
