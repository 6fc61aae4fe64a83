/**
 * Search helpers for `grep`: find a literal pattern in a text, line by line, and cut a short,
 * sanitized, single-line excerpt around each hit.
 */
import { sanitizeTerminalText } from "../../core/present/sanitize.js";

/** One matching line. */
export interface TextMatch {
  /** 1-based line number inside the searched text. */
  readonly line: number;
  readonly excerpt: string;
}

/** Finds the lines of `text` containing `pattern` (literal), with excerpts of about `width` characters. */
export function findMatches(
  text: string,
  pattern: string,
  options: { readonly ignoreCase: boolean; readonly width?: number },
): TextMatch[] {
  const width = options.width ?? 100;
  const needle = options.ignoreCase ? pattern.toLowerCase() : pattern;
  const matches: TextMatch[] = [];
  text.split("\n").forEach((line, index) => {
    const haystack = options.ignoreCase ? line.toLowerCase() : line;
    const at = haystack.indexOf(needle);
    if (at >= 0) matches.push({ line: index + 1, excerpt: cutExcerpt(line, at, pattern.length, width) });
  });
  return matches;
}

/** A window of `line` around [at, at+length), whitespace collapsed, `…` where cut, sanitized. */
export function cutExcerpt(line: string, at: number, length: number, width: number): string {
  const context = Math.max(0, Math.floor((width - length) / 2));
  const start = Math.max(0, at - context);
  const end = Math.min(line.length, at + length + context);
  const body = sanitizeTerminalText(line.slice(start, end)).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${body}${end < line.length ? "…" : ""}`;
}
