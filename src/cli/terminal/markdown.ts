/**
 * Markdown for a terminal: marked + marked-terminal. Loaded only when stdout is a terminal (the
 * renderer pulls in a syntax highlighter, which costs startup time), see markdown-stream.ts for
 * the streaming side. Its input must already be sanitized: the renderer adds only its own styling.
 */
import { Marked } from "marked";
import { markedTerminal } from "marked-terminal";

/** Renders a complete markdown text for a terminal `width` columns wide. */
export function createMarkdownRenderer(width: number): (text: string) => string {
  const marked = new Marked();
  // The typings lag behind marked's extension type; the runtime contract is the documented one.
  marked.use(markedTerminal({ width, reflowText: true, tab: 2 }) as Parameters<Marked["use"]>[0]);
  return (text) => marked.parse(text, { async: false }) as string;
}
