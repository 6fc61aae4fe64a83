/**
 * What a jp conversation's recorded configuration says about how to continue it: its model, its
 * system prompt and the tools jp offered. Pure. jp records the configuration as `base_config.json`
 * plus `config_delta` entries (see docs/import-export.md); cxc imports both as `config_delta`
 * events, and this module reads them back the way jp merges them.
 *
 * - Model: `assistant.model.id` is `provider/name`, jp's `{ provider, name }` table, or an alias,
 *   which the conversation's own `providers.llm.aliases` (recorded with it) resolves.
 * - System prompt, as jp builds it: `assistant.system_prompt`, then the sections
 *   (`assistant.system_prompt_sections` and each `assistant.instructions` entry as an
 *   `<instruction>` section) sorted by `position`, each rendered as jp renders it, joined by a
 *   blank line (jp sends them as separate system parts).
 * - Merging, as jp's config layers merge: tables key by key, scalars replace; jp's mergeable
 *   values may be plain or `{ value, strategy }` — a string replaces unless its strategy appends
 *   or prepends (with its `separator`), a list of sections or instructions appends unless its
 *   strategy replaces or prepends.
 * - Tools: jp's tool entries (those with a `source`) that are enabled. cxc cannot run them.
 */
import { isRecord } from "./jp-encoding.js";

/** A model id from configuration: `provider/name`, an alias, or jp's `{ provider, name }`. */
export function readModelId(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (isRecord(value) && typeof value.provider === "string" && typeof value.name === "string") {
    return value.provider !== "" && value.name !== "" ? `${value.provider}/${value.name}` : undefined;
  }
  return undefined;
}

const LIST_KEYS = new Set(["system_prompt_sections", "instructions"]);

/** `{ value, strategy, separator }` or a plain value. */
function unwrap(value: unknown): { value: unknown; strategy?: string; separator?: string } {
  if (isRecord(value) && "value" in value) {
    return {
      value: value.value,
      ...(typeof value.strategy === "string" ? { strategy: value.strategy } : {}),
      ...(typeof value.separator === "string" ? { separator: value.separator } : {}),
    };
  }
  return { value };
}

function mergeString(previous: unknown, next: unknown): unknown {
  const change = unwrap(next);
  if (typeof change.value !== "string") return change.value;
  if (typeof previous !== "string") return change.value;
  const separator = change.separator ?? "";
  if (change.strategy === "append") return `${previous}${separator}${change.value}`;
  if (change.strategy === "prepend") return `${change.value}${separator}${previous}`;
  return change.value;
}

function mergeList(previous: unknown, next: unknown): unknown {
  const change = unwrap(next);
  if (!Array.isArray(change.value)) return change.value;
  if (!Array.isArray(previous) || change.strategy === "replace") return change.value;
  return change.strategy === "prepend" ? [...change.value, ...previous] : [...previous, ...change.value];
}

/** Merges a jp delta into a jp configuration (the `assistant` table knows jp's mergeable values). */
export function mergeJpConfig(
  base: Record<string, unknown>,
  delta: unknown,
  path = "",
): Record<string, unknown> {
  if (!isRecord(delta)) return base;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(delta)) {
    const here = path === "" ? key : `${path}.${key}`;
    if (here === "assistant.system_prompt") merged[key] = mergeString(unwrap(base[key]).value, value);
    else if (path === "assistant" && LIST_KEYS.has(key))
      merged[key] = mergeList(unwrap(base[key]).value, value);
    else if (isRecord(value)) merged[key] = mergeJpConfig(isRecord(base[key]) ? base[key] : {}, value, here);
    else merged[key] = value;
  }
  return merged;
}

/** One system prompt section, as jp renders it from its `tag` and `title`. */
function renderSection(section: { content: string; tag?: string; title?: string }): string {
  const { content, tag, title } = section;
  if (tag !== undefined) {
    const attribute = title === undefined ? "" : ` title="${escapeAttribute(title)}"`;
    return `<${tag}${attribute}>\n${wrapCdataIfNeeded(content).trim()}\n</${tag}>`;
  }
  if (title !== undefined) return `# ${title}\n\n${content}`;
  return content.trim();
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function wrapCdataIfNeeded(content: string): string {
  if (!/[<>&]/.test(content)) return content;
  return `<![CDATA[\n${content.split("]]>").join("]]]]><![CDATA[>")}\n]]>`;
}

/** An `assistant.instructions` entry as jp's `<instruction>` section. */
function instructionSection(
  entry: unknown,
): { content: string; tag: string; title?: string; position: number } | undefined {
  if (typeof entry === "string") return { content: "", tag: "instruction", title: entry, position: 0 };
  if (!isRecord(entry)) return undefined;
  let content = "";
  if (typeof entry.description === "string") content += `${entry.description}\n\n`;
  for (const item of Array.isArray(entry.items) ? entry.items : []) {
    if (typeof item === "string") content += `- ${item}\n`;
  }
  const examples = Array.isArray(entry.examples) ? entry.examples : [];
  if (examples.length > 0) {
    content += "\n**Examples**\n";
    for (const example of examples) {
      content += "\n";
      if (typeof example === "string") content += `${example}\n`;
      else if (isRecord(example)) {
        content += `Good: ${String(example.good ?? "")}\nBad: ${String(example.bad ?? "")}\n`;
        if (typeof example.reason === "string") content += `Reason: ${example.reason}\n`;
      }
    }
  }
  return {
    content: content.trimEnd(),
    tag: "instruction",
    ...(typeof entry.title === "string" ? { title: entry.title } : {}),
    position: typeof entry.position === "number" ? entry.position : 0,
  };
}

function readSection(
  entry: unknown,
): { content: string; tag?: string; title?: string; position: number } | undefined {
  if (typeof entry === "string") return { content: entry, position: 0 };
  if (!isRecord(entry) || typeof entry.content !== "string") return undefined;
  return {
    content: entry.content,
    ...(typeof entry.tag === "string" ? { tag: entry.tag } : {}),
    ...(typeof entry.title === "string" ? { title: entry.title } : {}),
    position: typeof entry.position === "number" ? entry.position : 0,
  };
}

/** The system prompt jp would send for this configuration, or undefined when it sets none. */
export function renderJpSystemPrompt(config: Record<string, unknown>): string | undefined {
  const assistant = isRecord(config.assistant) ? config.assistant : {};
  const prompt = unwrap(assistant.system_prompt).value;
  const sectionsValue = unwrap(assistant.system_prompt_sections).value;
  const instructionsValue = unwrap(assistant.instructions).value;
  const sections = [
    ...(Array.isArray(sectionsValue) ? sectionsValue.map(readSection) : []),
    ...(Array.isArray(instructionsValue) ? instructionsValue.map(instructionSection) : []),
  ].filter((section) => section !== undefined);
  // A stable sort, as jp's `sort_by_key`.
  sections.sort((left, right) => left.position - right.position);
  const parts = [
    ...(typeof prompt === "string" && prompt.trim() !== "" ? [prompt] : []),
    ...sections.map(renderSection).filter((part) => part !== ""),
  ];
  return parts.length === 0 ? undefined : parts.join("\n\n");
}

/** True when a configuration names any part of jp's system prompt. */
export function setsJpSystemPrompt(delta: unknown): boolean {
  const assistant = isRecord(delta) && isRecord(delta.assistant) ? delta.assistant : undefined;
  if (assistant === undefined) return false;
  return (
    assistant.system_prompt !== undefined ||
    assistant.system_prompt_sections !== undefined ||
    (assistant.instructions !== undefined && typeof assistant.instructions !== "string")
  );
}

/** The model a jp configuration names, with its own aliases resolved (`sonnet` → `anthropic/…`). */
export function jpModel(config: Record<string, unknown>): string | undefined {
  const assistant = isRecord(config.assistant) ? config.assistant : {};
  const model = isRecord(assistant.model) ? assistant.model : {};
  const id = readModelId(model.id);
  if (id === undefined || id.includes("/")) return id;
  const providers = isRecord(config.providers) ? config.providers : {};
  const llm = isRecord(providers.llm) ? providers.llm : {};
  const aliases = isRecord(llm.aliases) ? llm.aliases : {};
  return readModelId(aliases[id]) ?? id;
}

/** jp's tools that are enabled in this configuration (entries with a `source`), sorted. */
export function enabledJpTools(config: Record<string, unknown>): string[] {
  const conversation = isRecord(config.conversation) ? config.conversation : {};
  const tools = isRecord(conversation.tools) ? conversation.tools : {};
  return Object.entries(tools)
    .filter(
      ([name, entry]) =>
        name !== "*" &&
        isRecord(entry) &&
        typeof entry.source === "string" &&
        entry.source !== "builtin" &&
        (entry.enable === true || entry.enable === "always"),
    )
    .map(([name]) => name)
    .sort();
}

/**
 * The warning that jp's tools do not come along, naming them (at most eight, then a count), for
 * one conversation or for `conversations` of an import.
 */
export function describeJpTools(tools: readonly string[], conversations = 1): string {
  const shown = tools.slice(0, 8).join(", ");
  const more = tools.length > 8 ? ` and ${tools.length - 8} more` : "";
  const [noun, verb, them] = tools.length === 1 ? ["tool", "does", "it"] : ["tools", "do", "them"];
  const whose = conversations === 1 ? "this conversation" : `${conversations} of these conversations`;
  return `jp's ${noun} of ${whose} (${shown}${more}) ${verb} not come along: cxc cannot run ${them}, so the model is not offered ${them}`;
}
