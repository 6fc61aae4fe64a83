/**
 * cxc's entries in pi's package list (`packages` in `~/.pi/agent/settings.json` or a project's
 * `.pi/settings.json`), found and taken out as text. Pure. pi adds an entry with `pi install
 * <source>`: a string, or an object whose `source` is one. cxc's are `npm:cxc` (with or without a
 * version) and a local path to a folder holding cxc's package (the caller says which paths are,
 * `isCxcFolder`, resolved against the settings file's scope as pi resolves them). Every other byte
 * stays; the list itself stays (empty when cxc's was its only entry: pi reads `[]` as none). A file
 * pi would not read (not JSON: pi reads it with `JSON.parse`, so no comments and no byte-order mark)
 * is refused with one message naming what is wrong and where.
 */
import { type Node, parseTree } from "jsonc-parser";
import { locateJsonError } from "../json-syntax.js";
import type { SettingsEdit } from "./agent-hooks.js";
import { removeChild } from "./json-text-edit.js";

/** One of cxc's entries in the list. */
export interface PiPackageEntry {
  /** The entry's source as written (`npm:cxc@0.1.0`, `../../src/cxc`). */
  readonly source: string;
  /** Its position in the list. */
  readonly index: number;
}

/** Whether a source names cxc: `npm:cxc[@version]`, or a local path `isCxcFolder` accepts. */
export function isCxcPiSource(source: string, isCxcFolder: (path: string) => boolean): boolean {
  const trimmed = source.trim();
  if (trimmed.startsWith("npm:")) return /^npm:cxc(?:@[^/\s]*)?$/.test(trimmed);
  if (/^(?:git:|git@|https?:\/\/|ssh:\/\/)/.test(trimmed)) return false;
  return isCxcFolder(trimmed);
}

/** The `packages` array of a settings text, or what is wrong with the text. */
function packagesOf(
  text: string,
  label: string,
): { ok: true; list: Node | undefined } | { ok: false; error: string } {
  if (text.startsWith("\uFEFF")) {
    return { ok: false, error: `${label} starts with a byte-order mark, which pi does not read: remove it` };
  }
  const problem = locateJsonError(text);
  if (problem !== undefined) {
    return {
      ok: false,
      error: `${label} is not valid JSON (line ${problem.line}, column ${problem.column}: ${problem.reason})`,
    };
  }
  const root = parseTree(text, [], { disallowComments: true });
  if (root?.type !== "object") return { ok: false, error: `${label} is not a JSON object` };
  const properties = (root.children ?? []).filter((child) => child.children?.[0]?.value === "packages");
  // pi reads the last `packages` of an object written twice (JSON.parse).
  const list = properties.at(-1)?.children?.[1];
  if (list !== undefined && list.type !== "array") {
    return { ok: false, error: `${label}: \`packages\` is not a list` };
  }
  return { ok: true, list };
}

/** The source of one element of the list: a string, or an object's `source`. */
function sourceOf(element: Node): string | undefined {
  if (element.type === "string") return element.value as string;
  if (element.type !== "object") return undefined;
  const property = (element.children ?? []).find((child) => child.children?.[0]?.value === "source");
  const value = property?.children?.[1];
  return value?.type === "string" ? (value.value as string) : undefined;
}

/** cxc's entries in a settings text, or what is wrong with it. */
export function findPiPackages(
  text: string,
  label: string,
  isCxcFolder: (path: string) => boolean,
): { ok: true; value: PiPackageEntry[] } | { ok: false; error: string } {
  const found = packagesOf(text, label);
  if (!found.ok) return found;
  const entries: PiPackageEntry[] = [];
  (found.list?.children ?? []).forEach((element, index) => {
    const source = sourceOf(element);
    if (source !== undefined && isCxcPiSource(source, isCxcFolder)) entries.push({ source, index });
  });
  return { ok: true, value: entries };
}

/** The text without cxc's entries in its `packages` list. */
export function removePiPackages(
  text: string,
  label: string,
  isCxcFolder: (path: string) => boolean,
): SettingsEdit {
  const found = findPiPackages(text, label, isCxcFolder);
  if (!found.ok) return found;
  let edited = text;
  // From the last, so the earlier positions still hold.
  for (const entry of [...found.value].reverse()) {
    const list = packagesOf(edited, label);
    if (!list.ok || list.list === undefined) break;
    edited = removeChild(edited, list.list, entry.index);
  }
  return {
    ok: true,
    text: edited,
    changed: edited !== text,
    events: found.value.map((entry) => entry.source),
  };
}
