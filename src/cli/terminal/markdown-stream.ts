/**
 * Streams markdown block by block. Text arrives in small deltas; rendering each delta alone would
 * break emphasis and code fences, and waiting for the whole answer would hide the stream.
 * `MarkdownStream` holds text until a block ends (a blank line outside a code fence), renders the
 * finished blocks, and renders the rest when the answer ends.
 */

/** Buffers deltas into whole blocks and writes each block rendered. */
export class MarkdownStream {
  readonly #render: (text: string) => string;
  readonly #write: (text: string) => void;
  #pending = "";

  constructor(render: (text: string) => string, write: (text: string) => void) {
    this.#render = render;
    this.#write = write;
  }

  push(text: string): void {
    this.#pending += text;
    const end = lastBlockEnd(this.#pending);
    if (end <= 0) return;
    this.#emit(this.#pending.slice(0, end));
    this.#pending = this.#pending.slice(end);
  }

  /** Renders whatever is left (the end of the answer, or before a prompt). */
  flush(): void {
    if (this.#pending.trim().length > 0) this.#emit(this.#pending);
    this.#pending = "";
  }

  #emit(text: string): void {
    const rendered = this.#render(text);
    this.#write(rendered.endsWith("\n") ? rendered : `${rendered}\n`);
  }
}

/** The offset just after the last blank line that is not inside a code fence, or 0. */
export function lastBlockEnd(text: string): number {
  let inFence = false;
  let end = 0;
  let offset = 0;
  for (const line of text.split("\n")) {
    const lineEnd = offset + line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === "" && lineEnd <= text.length) end = lineEnd;
    offset = lineEnd;
  }
  return end;
}
