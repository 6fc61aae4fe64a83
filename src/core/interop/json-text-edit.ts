/**
 * Editing a JSON document as text: add a property to an object, an element to an array, replace a
 * value, take a property or an element out, and leave every other byte as it was. Pure; the
 * positions come from jsonc-parser's syntax tree, the edits are plain splices of the text.
 *
 * What a user wrote is theirs: the neighbours of an edit keep their spacing, their line ends,
 * their inline objects and their comments. What is added takes the style of where it goes:
 *
 * - the separator before the last sibling is repeated before the new one (so a list laid out one
 *   element per line gets its new element on a line of its own, at the same indentation; an
 *   inline or minified list gets it inline);
 * - a new value is laid out like its sibling: on one line when the sibling's value is on one line
 *   (`{ "a": 1 }` beside `{ "b": 2 }`), else one member per line, indented by the file's own unit
 *   (tabs, 2 or 4 spaces…), with the file's line end (`\r\n` or `\n`) and colon (`": "` or `":"`);
 * - an empty container gets its content laid out like the rest of the file.
 *
 * Taking out the last element of a list takes the separator before it too, so adding then
 * removing it gives back the text byte for byte; a container left empty is written `{}` or `[]`.
 */
import type { Node } from "jsonc-parser";

/** A JSON value as `JSON.stringify` writes it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { [key: string]: JsonValue };

/** How the file lays itself out, for the text an edit adds. */
interface Style {
  readonly eol: string;
  /** One level of indentation. */
  readonly unit: string;
  /** Between a key and its value (`": "`, `":"`). */
  readonly colon: string;
  /** Between the members of a container on one line (`", "`, `","`). */
  readonly comma: string;
  /** Inside the braces of an object on one line (`{ "a": 1 }`: `" "`). */
  readonly pad: string;
}

const endOf = (node: Node): number => node.offset + node.length;

/** The offset after whitespace and comments from `position`. */
function skipTrivia(text: string, position: number): number {
  let at = position;
  for (;;) {
    while (at < text.length && " \t\r\n".includes(text[at]!)) at++;
    if (text.startsWith("//", at)) {
      const newline = text.indexOf("\n", at);
      at = newline < 0 ? text.length : newline;
    } else if (text.startsWith("/*", at)) {
      const close = text.indexOf("*/", at + 2);
      at = close < 0 ? text.length : close + 2;
    } else return at;
  }
}

/** The leading whitespace of the line `offset` is on. */
function indentOfLine(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

/** The file's line end: that of its first line. */
function eolOf(text: string): string {
  const newline = text.indexOf("\n");
  return newline > 0 && text[newline - 1] === "\r" ? "\r\n" : "\n";
}

/** The file's unit of indentation: that of its first indented line (two spaces if none). */
function unitOf(text: string): string {
  const indented = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indented === undefined) return "  ";
  return indented.startsWith("\t") ? "\t" : indented;
}

/** The first property of the document, depth first (to read the file's colon). */
function firstProperty(node: Node): Node | undefined {
  if (node.type === "property") return node;
  for (const child of node.children ?? []) {
    const found = firstProperty(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The whitespace around a property's colon, when it holds nothing else. */
function colonOf(text: string, property: Node): string | undefined {
  const [key, value] = property.children ?? [];
  if (key === undefined || value === undefined) return undefined;
  const between = text.slice(endOf(key), value.offset);
  return /^[ \t]*:[ \t]*$/.test(between) ? between : undefined;
}

function styleOf(text: string, root: Node, near?: Node): Style {
  const sample = near?.type === "property" ? near : firstProperty(root);
  const colon = (sample === undefined ? undefined : colonOf(text, sample)) ?? ": ";
  const spaced = colon.endsWith(" ");
  const inline = near?.type === "property" ? near.children?.[1] : near;
  const opening = inline?.type === "object" ? text[inline.offset + 1] : undefined;
  return {
    eol: eolOf(text),
    unit: unitOf(text),
    colon,
    comma: spaced ? ", " : ",",
    pad: opening === " " ? " " : "",
  };
}

/** `value` as text: on one line (`indent` undefined), or one member per line below `indent`. */
function render(value: JsonValue, style: Style, indent: string | undefined): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent === undefined ? undefined : indent + style.unit;
  const open = (bracket: string, items: string[], close: string, pad: string): string => {
    if (items.length === 0) return bracket + close;
    if (inner === undefined) return bracket + pad + items.join(style.comma) + pad + close;
    return `${bracket}${style.eol}${items.map((item) => inner + item).join(`,${style.eol}`)}${style.eol}${indent}${close}`;
  };
  if (Array.isArray(value))
    return open(
      "[",
      value.map((item) => render(item, style, inner)),
      "]",
      "",
    );
  const members = Object.entries(value as Record<string, JsonValue>).map(
    ([key, member]) => JSON.stringify(key) + style.colon + render(member, style, inner),
  );
  return open("{", members, "}", style.pad);
}

/** The text between the comma (or bracket) before `children[index]` and its start. */
function separatorBefore(text: string, container: Node, index: number): string {
  const children = container.children!;
  const start = index === 0 ? container.offset + 1 : skipTrivia(text, endOf(children[index - 1]!)) + 1;
  return text.slice(start, children[index]!.offset);
}

/** Whether a value spans lines (a scalar counts as laid out like its container). */
function spansLines(text: string, node: Node | undefined): boolean | undefined {
  if (node === undefined || (node.type !== "object" && node.type !== "array")) return undefined;
  return text.slice(node.offset, endOf(node)).includes("\n");
}

/**
 * Adds `item` (the text of an element, or of `"key": value` for an object) after the last child of
 * `container`; `renderItem` lays it out on one line or below an indentation.
 */
function appendChild(
  text: string,
  root: Node,
  container: Node,
  renderItem: (style: Style, indent: string | undefined) => string,
): string {
  const children = container.children ?? [];
  const close = endOf(container) - 1;
  if (children.length === 0) {
    // An empty container: its content laid out like the document (one line if it is minified).
    const style = styleOf(text, root);
    const multiline = text.slice(root.offset, endOf(root)).includes("\n") || container === root;
    if (!multiline) {
      const pad = container.type === "object" ? style.pad : "";
      return `${text.slice(0, container.offset + 1)}${pad}${renderItem(style, undefined)}${pad}${text.slice(close)}`;
    }
    const indent = indentOfLine(text, container.offset);
    const inner = indent + style.unit;
    return `${text.slice(0, container.offset + 1)}${style.eol}${inner}${renderItem(style, inner)}${style.eol}${indent}${text.slice(close)}`;
  }
  const last = children.at(-1)!;
  const style = styleOf(text, root, last);
  const separator = separatorBefore(text, container, children.length - 1);
  const lastValue = last.type === "property" ? last.children?.[1] : last;
  let between: string;
  let indent: string | undefined;
  if (separator.includes("\n")) {
    // One child per line: the same line break and indentation; the new value laid out like the
    // last one's (a scalar sibling: one member per line, as its container is).
    between = /[ \t\r\n]*$/.exec(separator)![0];
    if (!between.includes("\n")) between = style.eol + indentOfLine(text, last.offset);
    indent = spansLines(text, lastValue) === false ? undefined : indentOfLine(text, last.offset);
  } else {
    between = children.length > 1 ? separator.replace(/[^ \t]/g, "") : style.comma.slice(1);
    indent = undefined;
  }
  const at = endOf(last);
  return `${text.slice(0, at)},${between}${renderItem(style, indent)}${text.slice(at)}`;
}

/** `text` with `value` added at the end of the array `array`. */
export function appendElement(text: string, root: Node, array: Node, value: JsonValue): string {
  return appendChild(text, root, array, (style, indent) => render(value, style, indent));
}

/** `text` with `"key": value` added at the end of the object `object`. */
export function appendProperty(
  text: string,
  root: Node,
  object: Node,
  key: string,
  value: JsonValue,
): string {
  return appendChild(
    text,
    root,
    object,
    (style, indent) => JSON.stringify(key) + style.colon + render(value, style, indent),
  );
}

/** `text` with the value `node` replaced by `value` (on one line). */
export function replaceValue(text: string, root: Node, node: Node, value: JsonValue): string {
  return (
    text.slice(0, node.offset) + render(value, styleOf(text, root, node), undefined) + text.slice(endOf(node))
  );
}

/**
 * `text` without `container`'s child at `index` (a property or an element) and one separator: the
 * one before it (the one after it for the first child); the only child takes the container's
 * inside with it, leaving `{}` or `[]`.
 */
export function removeChild(text: string, container: Node, index: number): string {
  const children = container.children ?? [];
  const child = children[index];
  if (child === undefined) return text;
  if (children.length === 1) return text.slice(0, container.offset + 1) + text.slice(endOf(container) - 1);
  if (index > 0) return text.slice(0, endOf(children[index - 1]!)) + text.slice(endOf(child));
  return text.slice(0, child.offset) + text.slice(children[1]!.offset);
}
