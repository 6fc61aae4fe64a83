/**
 * Streams markdown block by block. Text arrives in small deltas; rendering each delta alone would
 * break emphasis and code fences, and waiting for the whole answer would hide the stream.
 * `MarkdownStream` holds text until a block ends (a blank line outside a code fence), renders the
 * finished blocks, and renders the rest when the answer ends.
 */

/**
 * Buffers deltas into whole blocks and writes each block rendered. Each line is scanned once, so a
 * long answer (a big code block arriving in thousands of deltas) costs time linear in its length.
 */
export class MarkdownStream {
  readonly #render: (text: string) => string;
  readonly #write: (text: string) => void;
  /** Complete lines since the last rendered block. */
  #lines: string[] = [];
  /** The line being received (no newline yet). Only new text is searched for newlines. */
  #partial = "";
  #inFence = false;

  constructor(render: (text: string) => string, write: (text: string) => void) {
    this.#render = render;
    this.#write = write;
  }

  push(text: string): void {
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline < 0) break;
      const line = this.#partial + text.slice(start, newline);
      this.#partial = "";
      start = newline + 1;
      this.#lines.push(`${line}\n`);
      if (/^\s*(```|~~~)/.test(line)) this.#inFence = !this.#inFence;
      else if (!this.#inFence && line.trim() === "") this.#emitLines();
    }
    this.#partial += text.slice(start);
  }

  /** Renders whatever is left (the end of the answer, or before a prompt). */
  flush(): void {
    const rest = this.#lines.join("") + this.#partial;
    this.#lines = [];
    this.#partial = "";
    this.#inFence = false;
    if (rest.trim().length > 0) this.#emit(rest);
  }

  #emitLines(): void {
    const block = this.#lines.join("");
    this.#lines = [];
    this.#emit(block);
  }

  #emit(text: string): void {
    const rendered = this.#render(text);
    this.#write(rendered.endsWith("\n") ? rendered : `${rendered}\n`);
  }
}
