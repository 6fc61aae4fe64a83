/**
 * Inline markdown (emphasis, strong, strikethrough, code spans, links, backslash escapes) read as
 * it streams. Each character is decided once and never taken back: a delimiter is held only until
 * the character after it shows whether it opens, closes or is literal, and a link only until its
 * `](…)` arrives. What is still undecided is `pending` (the caller shows it as it is, provisionally).
 *
 * The rules are CommonMark's flanking rules, simplified for a stream: an emphasis opener applies
 * its style at once (one never closed stays styled to the end of its line), a code span and a
 * link wait for their end (without it they are literal), styles end with the line, and `_` never
 * works inside a word (snake_case stays as written).
 */

/** Style flags of a piece of text. */
export const Style = {
  none: 0,
  bold: 1,
  italic: 2,
  strike: 4,
  code: 8,
  link: 16,
  dim: 32,
  heading: 64,
} as const;

/** Receives decided text with its style flags. */
export type InlineSink = (text: string, flags: number) => void;

/** How long a `[` waits for its `](url)`, and a backtick for its closer, before it is literal. */
const MAX_LINK_SOURCE = 500;

const SPECIAL = /[\\`*_~[]/;
const PUNCTUATION = /[!-/:-@[-`{-~\p{P}\p{S}]/u;

function isSpace(character: string): boolean {
  return character === "" || /\s/.test(character);
}

function isPunctuation(character: string): boolean {
  return PUNCTUATION.test(character);
}

function runLength(text: string, character: string): number {
  let length = 0;
  while (text[length] === character) length += 1;
  return length;
}

/** Scans one line's inline markdown; see the module comment. */
export class InlineScanner {
  readonly #sink: InlineSink;
  readonly #base: number;
  #pending = "";
  #flags = 0;
  /** The last source character decided, for the flanking rules ("" at the start). */
  #previous = "";

  constructor(sink: InlineSink, base: number = Style.none) {
    this.#sink = sink;
    this.#base = base;
  }

  /** The text not decided yet. */
  get pending(): string {
    return this.#pending;
  }

  /** The style the next decided text gets. */
  get flags(): number {
    return this.#base | this.#flags;
  }

  push(text: string): void {
    this.#pending += text;
    this.#drain(false);
  }

  /** Decides everything pending as if the line ended here, keeping the open styles. */
  decide(): void {
    this.#drain(true);
  }

  /** The line ended: decides what is pending and closes every style. */
  end(): void {
    this.#drain(true);
    this.#flags = 0;
    this.#previous = "";
  }

  #emit(text: string, flags = this.flags): void {
    if (text.length === 0) return;
    this.#sink(text, flags);
    this.#previous = text[text.length - 1]!;
  }

  #consume(count: number): void {
    this.#pending = this.#pending.slice(count);
  }

  /** Decides as much of `pending` as can be; `final`: nothing more comes (the end counts as a space). */
  #drain(final: boolean): void {
    while (this.#pending.length > 0) {
      const text = this.#pending;
      const character = text[0]!;
      let decided: boolean;
      if (character === "\\") decided = this.#escape(text, final);
      else if (character === "`") decided = this.#openCode(text, final);
      else if (character === "*" || character === "_" || character === "~")
        decided = this.#delimiter(text, final);
      else if (character === "[") decided = this.#link(text, final);
      else {
        const next = text.slice(1).search(SPECIAL);
        const plain = next < 0 ? text : text.slice(0, next + 1);
        this.#emit(plain);
        this.#consume(plain.length);
        decided = true;
      }
      if (!decided) return;
    }
  }

  #escape(text: string, final: boolean): boolean {
    if (text.length < 2 && !final) return false;
    const next = text[1];
    if (next !== undefined && /[!-/:-@[-`{-~]/.test(next)) {
      this.#emit(next);
      this.#consume(2);
    } else {
      this.#emit("\\");
      this.#consume(1);
    }
    return true;
  }

  /** A code span: waits for its closing backticks; without them the backticks are literal. */
  #openCode(text: string, final: boolean): boolean {
    const run = runLength(text, "`");
    let search = run;
    for (;;) {
      const close = text.indexOf("`".repeat(run), search);
      if (close < 0) break;
      const closing = runLength(text.slice(close), "`");
      if (closing === run) {
        this.#emit(text.slice(run, close), this.flags | Style.code);
        this.#consume(close + run);
        this.#previous = "`";
        return true;
      }
      // A longer run of backticks is code text, not the closer.
      if (close + closing >= text.length && !final) return false;
      search = close + closing;
    }
    if (!final && text.length < MAX_LINK_SOURCE && !text.includes("\n")) return false;
    this.#emit(text.slice(0, run));
    this.#consume(run);
    return true;
  }

  #delimiter(text: string, final: boolean): boolean {
    const character = text[0]!;
    const run = runLength(text, character);
    if (run === text.length && !final) return false;
    const next = text[run] ?? "";
    const previous = this.#previous;
    const leftFlanking =
      !isSpace(next) && (!isPunctuation(next) || isSpace(previous) || isPunctuation(previous));
    const rightFlanking =
      !isSpace(previous) && (!isPunctuation(previous) || isSpace(next) || isPunctuation(next));
    this.#consume(run);
    if (character === "~") {
      if (run === 2 && rightFlanking && this.#flags & Style.strike) this.#flags &= ~Style.strike;
      else if (run === 2 && leftFlanking && !(this.#flags & Style.strike)) this.#flags |= Style.strike;
      else this.#emit(text.slice(0, run));
      this.#previous = character;
      return true;
    }
    const canOpen = leftFlanking && (character === "*" || !rightFlanking || isPunctuation(previous));
    const canClose = rightFlanking && (character === "*" || !leftFlanking || isPunctuation(next));
    let remaining = run > 3 ? 0 : run;
    if (canClose) {
      if (remaining >= 2 && this.#flags & Style.bold) {
        this.#flags &= ~Style.bold;
        remaining -= 2;
      }
      if (remaining >= 1 && this.#flags & Style.italic) {
        this.#flags &= ~Style.italic;
        remaining -= 1;
      }
    }
    if (canOpen && remaining > 0) {
      if (remaining >= 2 && !(this.#flags & Style.bold)) {
        this.#flags |= Style.bold;
        remaining -= 2;
      }
      if (remaining >= 1 && !(this.#flags & Style.italic)) {
        this.#flags |= Style.italic;
        remaining -= 1;
      }
    }
    const literal = run > 3 ? run : remaining;
    if (literal > 0) this.#emit(character.repeat(literal));
    this.#previous = character;
    return true;
  }

  /** `[text](url)`: the text styled as a link, then the address dimmed; anything else is literal. */
  #link(text: string, final: boolean): boolean {
    const waiting = !final && text.length < MAX_LINK_SOURCE && !text.includes("\n");
    const close = text.indexOf("]");
    if (close < 0) {
      if (waiting) return false;
      return this.#literalBracket();
    }
    if (close + 1 >= text.length) {
      if (waiting) return false;
      return this.#literalBracket();
    }
    if (text[close + 1] !== "(") return this.#literalBracket();
    const end = text.indexOf(")", close + 2);
    if (end < 0) {
      if (waiting) return false;
      return this.#literalBracket();
    }
    const label = text.slice(1, close);
    const url = text.slice(close + 2, end);
    this.#consume(end + 1);
    const inner = new InlineScanner((piece, flags) => this.#sink(piece, flags), this.flags | Style.link);
    inner.push(label);
    inner.end();
    if (url.length > 0 && url !== label) this.#sink(` (${url})`, this.flags | Style.dim);
    this.#previous = ")";
    return true;
  }

  #literalBracket(): boolean {
    this.#emit("[");
    this.#consume(1);
    return true;
  }
}
