/**
 * cxc's hook entries in an agent's JSON settings (Claude Code's `settings.json`, Codex's
 * `hooks.json`: both `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", …}]}]}}`),
 * merged into and taken out of the file's text. Pure.
 *
 * The file is the user's: every key and every hook that is not cxc's stays byte for byte. Edits
 * are made in the text (jsonc-parser), never by writing the parsed value back, and in the file's
 * own indentation and line ends:
 *
 * - `installHooks` adds one matcher group per cxc entry at the end of its event's list (creating
 *   the list, or the `hooks` table, at the end of their parent), and updates a cxc group that
 *   differs (another path to cxc, say). Installing twice changes nothing.
 * - `uninstallHooks` removes cxc's hook commands, the groups they leave empty, and the event
 *   lists and `hooks` table those leave empty: after an install into a file that had neither, the
 *   file is as it was. (An empty list or `hooks` table the user had before installing goes too.)
 * - A file that is not valid JSON, or whose `hooks` is not a table of lists, is refused with one
 *   message naming what is wrong and where; nothing is edited.
 *
 * Which commands are cxc's is the caller's predicate (`isCxcHookCommand` for the usual one).
 */
import { applyEdits, type FormattingOptions, modify } from "jsonc-parser";

/** One matcher group cxc puts under an event. */
export interface HookEntry {
  readonly event: string;
  /** Claude Code's matcher (for `SessionStart`: the source, `compact`). */
  readonly matcher?: string;
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

type Json = Record<string, unknown>;

/**
 * Whether a hook command runs `cxc hook <agent>` (by the name `cxc` or a path to cxc's
 * `bin/cxc.cjs`, quoted or not).
 */
export function isCxcHookCommand(command: string, agent: string): boolean {
  const escaped = agent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s'"/])cxc(?:\\.cjs)?['"]?\\s+hook\\s+${escaped}(?:\\s|$)`).test(command);
}

/** The parsed settings, or the message refusing them. */
function parseSettings(
  text: string,
  label: string,
): { ok: true; value: Json } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${label} is not valid JSON (${describeJsonError(text, error as Error)})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `${label} does not hold a JSON object` };
  }
  const hooks = (value as Json).hooks;
  if (hooks === undefined) return { ok: true, value: value as Json };
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) {
    return { ok: false, error: `${label}: \`hooks\` is not a table of events` };
  }
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) return { ok: false, error: `${label}: \`hooks.${event}\` is not a list` };
  }
  return { ok: true, value: value as Json };
}

/** `line 3, column 7: Unexpected token` from a `JSON.parse` error. */
function describeJsonError(text: string, error: Error): string {
  const message = error.message.replace(/^JSON\.parse: /, "");
  const position = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/\s*(?:in JSON )?at position \d+.*$/s, "")
    .replace(/\s*\(line \d+ column \d+\)$/, "");
  if (position === null) return reason;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `line ${line}, column ${column}: ${reason}`;
}

/** The file's own indentation and line ends, for the text an edit inserts. */
function formattingOf(text: string): FormattingOptions {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (indented?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented === undefined ? 2 : indented.length, eol };
}

function groupOf(entry: HookEntry): Json {
  const hook: Json = { type: "command", command: entry.command };
  if (entry.timeout !== undefined) hook.timeout = entry.timeout;
  return entry.matcher === undefined ? { hooks: [hook] } : { matcher: entry.matcher, hooks: [hook] };
}

function groupsAt(value: Json, event: string): unknown[] {
  const hooks = value.hooks as Json | undefined;
  const groups = hooks?.[event];
  return Array.isArray(groups) ? groups : [];
}

function commandsOf(group: unknown): string[] {
  if (typeof group !== "object" || group === null) return [];
  const hooks = (group as Json).hooks;
  if (!Array.isArray(hooks)) return [];
  return hooks.flatMap((hook) =>
    typeof hook === "object" && hook !== null && typeof (hook as Json).command === "string"
      ? [(hook as Json).command as string]
      : [],
  );
}

/** The cxc hooks a settings text holds (none when it is not valid). */
export function findCxcHooks(text: string, isOurs: (command: string) => boolean): FoundHook[] {
  const parsed = parseSettings(text, "settings");
  if (!parsed.ok) return [];
  const found: FoundHook[] = [];
  for (const event of Object.keys((parsed.value.hooks as Json | undefined) ?? {})) {
    for (const group of groupsAt(parsed.value, event)) {
      const matcher = (group as Json | null)?.matcher;
      for (const command of commandsOf(group).filter(isOurs)) {
        found.push({ event, ...(typeof matcher === "string" ? { matcher } : {}), command });
      }
    }
  }
  return found;
}

/**
 * `text` with cxc's `entries` merged in (see the module comment). `text` undefined is a file that
 * does not exist yet: it is written as a new JSON object holding only the hooks.
 */
export function installHooks(
  text: string | undefined,
  entries: readonly HookEntry[],
  isOurs: (command: string) => boolean,
  label = "settings.json",
): SettingsEdit {
  if (text === undefined) {
    const hooks: Json = {};
    for (const entry of entries)
      hooks[entry.event] = [...((hooks[entry.event] as Json[]) ?? []), groupOf(entry)];
    return {
      ok: true,
      text: `${JSON.stringify({ hooks }, null, 2)}\n`,
      changed: true,
      events: entries.map((entry) => entry.event),
    };
  }
  const parsed = parseSettings(text, label);
  if (!parsed.ok) return parsed;
  const formattingOptions = formattingOf(text);
  let current = text;
  let value = parsed.value;
  const events: string[] = [];
  const edit = (path: (string | number)[], inserted: unknown): void => {
    current = applyEdits(current, modify(current, path, inserted, { formattingOptions }));
    value = JSON.parse(current) as Json;
  };
  if (value.hooks === undefined) {
    const hooks: Json = {};
    for (const entry of entries)
      hooks[entry.event] = [...((hooks[entry.event] as Json[]) ?? []), groupOf(entry)];
    edit(["hooks"], hooks);
    return { ok: true, text: current, changed: true, events: entries.map((entry) => entry.event) };
  }
  for (const entry of entries) {
    const wanted = groupOf(entry);
    const groups = groupsAt(value, entry.event);
    const index = groups.findIndex((group) => {
      const matcher = (group as Json | null)?.matcher;
      return commandsOf(group).some(isOurs) && (matcher ?? undefined) === entry.matcher;
    });
    if (index >= 0) {
      if (JSON.stringify(groups[index]) === JSON.stringify(wanted)) continue;
      edit(["hooks", entry.event, index], wanted);
    } else if ((value.hooks as Json)[entry.event] === undefined) {
      edit(["hooks", entry.event], [wanted]);
    } else {
      edit(["hooks", entry.event, -1], wanted);
    }
    events.push(entry.event);
  }
  return { ok: true, text: current, changed: current !== text, events };
}

/** `text` without cxc's hook commands and what they leave empty (see the module comment). */
export function uninstallHooks(
  text: string,
  isOurs: (command: string) => boolean,
  label = "settings.json",
): SettingsEdit {
  const parsed = parseSettings(text, label);
  if (!parsed.ok) return parsed;
  const formattingOptions = formattingOf(text);
  let current = text;
  let value = parsed.value;
  const events = new Set<string>();
  const remove = (path: (string | number)[]): void => {
    current = applyEdits(current, modify(current, path, undefined, { formattingOptions }));
    value = JSON.parse(current) as Json;
  };
  for (const event of Object.keys((value.hooks as Json | undefined) ?? {})) {
    const groups = groupsAt(value, event);
    for (let index = groups.length - 1; index >= 0; index--) {
      const group = groups[index];
      const hooks = (group as Json | null)?.hooks;
      if (!Array.isArray(hooks) || !commandsOf(group).some(isOurs)) continue;
      events.add(event);
      const ours = hooks.map((hook) => typeof hook?.command === "string" && isOurs(hook.command));
      if (ours.every(Boolean)) {
        remove(["hooks", event, index]);
        continue;
      }
      for (let position = hooks.length - 1; position >= 0; position--) {
        if (ours[position]) remove(["hooks", event, index, "hooks", position]);
      }
    }
    if (groupsAt(value, event).length === 0 && events.has(event)) remove(["hooks", event]);
  }
  const hooks = value.hooks as Json | undefined;
  if (hooks !== undefined && Object.keys(hooks).length === 0 && events.size > 0) remove(["hooks"]);
  // `{}` as JSON.stringify writes it, not `{\n}`.
  if (Object.keys(value).length === 0 && /^\s*\{\s*\}\s*$/.test(current)) {
    current = current.replace(/\{\s*\}/, "{}");
  }
  return { ok: true, text: current, changed: current !== text, events: [...events] };
}
