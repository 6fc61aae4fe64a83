/**
 * Markdown for a terminal, rendered as it streams (docs/query.md, "At a terminal").
 *
 * Text shows as it arrives, inside paragraphs and list items, with its formatting applied as soon
 * as it is certain. What is on screen above the current row is final: a row is written once, when
 * it is full (words wrap at `width`) or its line ends, and never rewritten. Only the current row
 * is redrawn (carriage return, clear line) while it fills, showing its decided words plus the
 * undecided tail (a word still arriving, a `**` or `[link` whose meaning the next characters
 * decide) as plain text. Nothing is ever printed twice.
 *
 * Blocks are recognised by the start of each line: `#` headings, `-`/`*`/`+`/`1.` list items
 * (hanging indent), `>` quotes, `|` table rows, `---` rules and code fences, whose lines stream as
 * code (never wrapped or parsed). A line's start is decided by its characters alone, never by where
 * the stream's chunks happen to end: a start still undecided when other output must be written
 * (`settle`) stays undecided, off the screen, until its next characters arrive. A table's rows are
 * held until the table ends (up to `MAX_HELD_TABLE_ROWS`) and printed aligned
 * (markdown-table.ts). Inline styles are markdown-inline.ts. The input must already be sanitized
 * (core/present/sanitize.ts): the renderer adds only its own styling.
 */
import stringWidth from "string-width";
import { InlineScanner, Style } from "./markdown-inline.js";
import { AlignedTable, type TablePiece, typedRow } from "./markdown-table.js";

const RESET = "\u001b[0m";
const SGR_SEQUENCE = /\u001b\[[0-9;]*m/g;
const CLEAR_ROW = "\r\u001b[2K";
const BULLET = "•";
const QUOTE_GUTTER = "│ ";
const CODE_INDENT = "  ";
const TAB = "    ";
/** The most table rows held to be aligned; a longer table's later rows print as they come. */
export const MAX_HELD_TABLE_ROWS = 200;

/** A piece of a row: text and its style. */
interface Piece {
  text: string;
  flags: number;
}

type LineKind = "paragraph" | "heading" | "item" | "quote" | "table" | "code";

/** What the start of a line made it. */
interface LineBlock {
  readonly kind: LineKind;
  /** Rendered prefix of the line's first row, and its width. */
  readonly first: string;
  readonly firstWidth: number;
  /** Prefix of the rows it wraps onto. */
  readonly continuation: string;
  readonly continuationWidth: number;
  /** Style of the whole line (headings). */
  readonly base: number;
}

/** A classified line start: the block, and how many characters of the line its prefix took. */
type Classified =
  | { readonly kind: "block"; readonly block: LineBlock; readonly consumed: number }
  | { readonly kind: "fence"; readonly character: string; readonly length: number }
  | { readonly kind: "fence-close" }
  | { readonly kind: "rule" }
  | { readonly kind: "blank" };

function sgr(flags: number): string {
  const codes: string[] = [];
  if (flags & Style.heading) codes.push("1", "35");
  if (flags & Style.bold) codes.push("1");
  if (flags & Style.dim) codes.push("2");
  if (flags & Style.italic) codes.push("3");
  if (flags & Style.link) codes.push("4", "34");
  if (flags & Style.strike) codes.push("9");
  if (flags & Style.code) codes.push("33");
  return codes.length === 0 ? "" : `\u001b[${codes.join(";")}m`;
}

function renderPieces(pieces: readonly Piece[]): string {
  return pieces
    .map((piece) => (piece.flags === 0 ? piece.text : `${sgr(piece.flags)}${piece.text}${RESET}`))
    .join("");
}

/** The longest start of `text` at most `columns` wide. */
function truncate(text: string, columns: number): string {
  if (columns <= 0) return "";
  if (stringWidth(text) <= columns) return text;
  let width = 0;
  let end = 0;
  for (const character of text) {
    const next = stringWidth(character);
    if (width + next > columns) break;
    width += next;
    end += character.length;
  }
  return text.slice(0, end);
}

function block(kind: LineKind, first: string, continuation: string, base: number = Style.none): LineBlock {
  return {
    kind,
    first,
    firstWidth: stringWidth(first.replace(/\u001b\[[0-9;]*m/g, "")),
    continuation,
    continuationWidth: stringWidth(continuation),
    base,
  };
}

/**
 * What the start of `line` makes it, or undefined while the next characters could change that
 * (`complete`: the line has ended). `fence` is the open code fence, if any.
 */
function classify(
  line: string,
  complete: boolean,
  fence: { character: string; length: number } | undefined,
): Classified | undefined {
  if (fence !== undefined) {
    const closing = /^ {0,3}([`~]*)\s*$/.exec(line);
    const run = closing?.[1] ?? "";
    const couldClose = closing !== null && [...run].every((character) => character === fence.character);
    if (couldClose && !complete) return undefined;
    if (couldClose && run.length >= fence.length) return { kind: "fence-close" };
    return { kind: "block", block: block("code", CODE_INDENT, CODE_INDENT), consumed: 0 };
  }
  if (/^\s*$/.test(line)) return complete ? { kind: "blank" } : undefined;
  const indent = /^ */.exec(line)![0];
  const rest = line.slice(indent.length);
  const opener = /^(`{3,}|~{3,})/.exec(rest);
  if (opener) {
    if (!complete) return undefined;
    const marker = opener[1]!;
    if (marker[0] === "`" && rest.slice(marker.length).includes("`")) return paragraph(indent);
    return { kind: "fence", character: marker[0]!, length: marker.length };
  }
  if (/^([-*_])( *\1){2,} *$/.test(rest)) return complete ? { kind: "rule" } : undefined;
  // `-`, `- -`, `**`: a rule if the line ends so, else a list item or emphasis; wait and see.
  if (!complete && /^([-*_]) *(\1 *)*$/.test(rest)) return undefined;
  const bullet = /^([-*+])( +)(?=\S)/.exec(rest);
  if (bullet) {
    const first = `${indent}${BULLET}${bullet[2]}`;
    return {
      kind: "block",
      block: block("item", first, " ".repeat(stringWidth(first))),
      consumed: indent.length + bullet[0].length,
    };
  }
  const ordered = /^(\d{1,9}[.)])( +)(?=\S)/.exec(rest);
  if (ordered) {
    const first = `${indent}${ordered[1]}${ordered[2]}`;
    return {
      kind: "block",
      block: block("item", first, " ".repeat(first.length)),
      consumed: indent.length + ordered[0].length,
    };
  }
  const heading = /^(#{1,6})( +)(?=\S)/.exec(rest);
  if (heading) {
    return {
      kind: "block",
      block: block("heading", indent, indent, Style.heading),
      consumed: indent.length + heading[0].length,
    };
  }
  if (rest.startsWith(">")) {
    const gutter = `${sgr(Style.dim)}${QUOTE_GUTTER}${RESET}`;
    const consumed = indent.length + (rest.startsWith("> ") ? 2 : 1);
    if (rest.length === 1 && !complete) return undefined;
    return {
      kind: "block",
      block: block("quote", `${indent}${gutter}`, `${indent}${QUOTE_GUTTER}`),
      consumed,
    };
  }
  if (rest.startsWith("|"))
    return { kind: "block", block: block("table", indent, indent), consumed: indent.length };
  // Still possibly a list item, a heading, a rule or a fence: wait for the next character.
  if (!complete && /^([-*+] *|\d{1,9}([.)] *)?|#{1,6} *|`{1,2}|~{1,2})$/.test(rest)) return undefined;
  return paragraph(indent);
}

function paragraph(indent: string): Classified {
  return { kind: "block", block: block("paragraph", indent, indent), consumed: indent.length };
}

/** Streams markdown to a terminal; see the module comment. */
export class MarkdownStream {
  readonly #width: number;
  readonly #write: (text: string) => void;
  /** The current source line while its start is undecided. */
  #head = "";
  #block: LineBlock | undefined;
  #scanner: InlineScanner | undefined;
  #fence: { character: string; length: number } | undefined;
  /** Code and table lines: their text so far (shown truncated until the line ends). */
  #rawLine = "";
  /** The current row: its pieces (prefix included) and width, and whether a word is on it. */
  #row: Piece[] = [];
  #rowWidth = 0;
  #rowOpen = false;
  #rowHasWords = false;
  /** Rows the current line has written (a row after the first takes the continuation prefix). */
  #lineRows = 0;
  /** The word being received and whether a space comes before it. */
  #word: Piece[] = [];
  #wordWidth = 0;
  #spaceBefore = false;
  /** What the screen shows of the current row (to skip redraws that change nothing). */
  #drawn = "";
  #wroteRows = false;
  #blankPending = false;
  /** The lines of the table being received, held until it ends (indent included). */
  #tableLines: string[] = [];
  /** A table too long to hold: its layout (if aligned) and the index of its next line. */
  #tableFlowing: { readonly layout: AlignedTable | undefined; index: number } | undefined;

  /**
   * `width`: the columns a row may use; `write`: the terminal; `styles: false` (no colour): the
   * same layout without bold, colours or dimming.
   */
  constructor(width: number, write: (text: string) => void, options: { styles?: boolean } = {}) {
    this.#width = Math.max(20, width);
    this.#write = options.styles === false ? (text) => write(text.replace(SGR_SEQUENCE, "")) : write;
  }

  /** Adds streamed text. */
  push(text: string): void {
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      const piece = newline < 0 ? text.slice(start) : text.slice(start, newline);
      if (piece.length > 0) this.#add(piece.replace(/\t/g, TAB));
      if (newline < 0) break;
      this.#endLine();
      start = newline + 1;
    }
    this.#draw();
  }

  /**
   * Ends the current row so other output can follow (a tool call, a prompt): what is undecided
   * is decided as it stands, and the line continues on a new row.
   */
  settle(): void {
    // An undecided line start (`` `` `` of a closing fence, `-` of an item or a rule) stays
    // undecided: it is erased for now and drawn again when its next characters arrive.
    this.#scanner?.decide();
    this.#placeWord();
    if (this.#block?.kind === "table") {
      this.#endTable();
      if (this.#rawLine.length > 0) this.#commitRawLine();
    } else if (this.#block?.kind === "code") {
      if (this.#rawLine.length > 0) this.#commitRawLine();
    } else {
      if (this.#block === undefined) this.#endTable();
      if (this.#rowOpen && this.#rowHasWords) this.#commitRow();
    }
    this.#clearDrawn();
  }

  /** The answer ended: finishes the last line. */
  finish(): void {
    if (this.#head.length > 0 || this.#block !== undefined) this.#endLine();
    this.#endTable();
    this.#fence = undefined;
    this.#clearDrawn();
  }

  #clearDrawn(): void {
    if (this.#drawn.length === 0) return;
    this.#write(CLEAR_ROW);
    this.#drawn = "";
  }

  #add(text: string): void {
    if (this.#block === undefined) {
      this.#head += text;
      this.#decideHead();
      return;
    }
    this.#addContent(text);
  }

  #addContent(text: string): void {
    const kind = this.#block!.kind;
    if (kind === "code" || kind === "table") this.#rawLine += text;
    else this.#scanner!.push(text);
  }

  /** Classifies the line start once its characters decide it (an unfinished line is only ever a block). */
  #decideHead(): void {
    const classified = classify(this.#head, false, this.#fence);
    if (classified?.kind === "block") this.#startBlock(classified);
  }

  #startBlock(classified: Extract<Classified, { kind: "block" }>): void {
    const rest = this.#head.slice(classified.consumed);
    this.#head = "";
    this.#block = classified.block;
    this.#lineRows = 0;
    const kind = classified.block.kind;
    if (kind !== "table") this.#endTable();
    if (kind !== "code" && kind !== "table") {
      this.#scanner = new InlineScanner((piece, flags) => this.#take(piece, flags), classified.block.base);
    }
    if (rest.length > 0) this.#addContent(rest);
  }

  /** A source line ended. */
  #endLine(): void {
    if (this.#block === undefined) {
      const classified = classify(this.#head, true, this.#fence);
      if (classified === undefined || classified.kind !== "block") this.#head = "";
      if (classified === undefined) return;
      if (classified.kind !== "block") this.#endTable();
      if (classified.kind === "blank") {
        if (this.#wroteRows) this.#blankPending = true;
        return;
      }
      if (classified.kind === "fence") {
        this.#fence = { character: classified.character, length: classified.length };
        return;
      }
      if (classified.kind === "fence-close") {
        this.#fence = undefined;
        return;
      }
      if (classified.kind === "rule") {
        this.#openRow();
        this.#row.push({ text: "─".repeat(Math.min(this.#width, 60)), flags: Style.dim });
        this.#commitRow();
        return;
      }
      this.#startBlock(classified);
    }
    const kind = this.#block!.kind;
    if (kind === "table") this.#tableLine(`${this.#block!.first}${this.#rawLine}`);
    else if (kind === "code") this.#commitRawLine();
    else {
      this.#scanner!.end();
      this.#placeWord();
      if (this.#rowOpen && (this.#rowHasWords || this.#lineRows === 0)) this.#commitRow();
    }
    this.#resetLine();
  }

  /** A table line ended: held, or (a table too long to hold) printed at once. */
  #tableLine(line: string): void {
    const flowing = this.#tableFlowing;
    if (flowing !== undefined) {
      this.#writeTableRow(flowing.layout, line, flowing.index);
      flowing.index += 1;
      return;
    }
    this.#tableLines.push(line);
    if (this.#tableLines.length > MAX_HELD_TABLE_ROWS) {
      const layout = this.#printHeldTable();
      this.#tableFlowing = { layout, index: MAX_HELD_TABLE_ROWS + 1 };
    }
  }

  /** The table ended: its held rows are printed, aligned when they make a table that fits. */
  #endTable(): void {
    this.#tableFlowing = undefined;
    if (this.#tableLines.length > 0) this.#printHeldTable();
  }

  #printHeldTable(): AlignedTable | undefined {
    const lines = this.#tableLines;
    this.#tableLines = [];
    const layout = AlignedTable.of(lines, this.#width);
    for (const [index, line] of lines.entries()) this.#writeTableRow(layout, line, index);
    return layout;
  }

  #writeTableRow(layout: AlignedTable | undefined, line: string, index: number): void {
    const pieces: readonly TablePiece[] = layout === undefined ? typedRow(line) : layout.row(line, index);
    this.#writeRow(renderPieces(pieces));
  }

  #resetLine(): void {
    this.#block = undefined;
    this.#scanner = undefined;
    this.#rawLine = "";
    this.#rowOpen = false;
    this.#row = [];
    this.#rowWidth = 0;
    this.#rowHasWords = false;
    this.#lineRows = 0;
    this.#spaceBefore = false;
  }

  /** Decided inline text: split into words that wrap. */
  #take(text: string, flags: number): void {
    let start = 0;
    for (let position = 0; position <= text.length; position++) {
      if (position < text.length && text[position] !== " ") continue;
      if (position > start) this.#appendToWord(text.slice(start, position), flags);
      if (position < text.length) {
        this.#placeWord();
        if (this.#rowHasWords || this.#word.length > 0) this.#spaceBefore = true;
      }
      start = position + 1;
    }
  }

  #appendToWord(text: string, flags: number): void {
    const last = this.#word[this.#word.length - 1];
    if (last !== undefined && last.flags === flags) last.text += text;
    else this.#word.push({ text, flags });
    this.#wordWidth += stringWidth(text);
    this.#fit();
  }

  /** Keeps the word on a row it fits: moves it to a new row, or breaks a word wider than a row. */
  #fit(): void {
    this.#openRow();
    if (this.#rowHasWords && this.#rowWidth + 1 + this.#wordWidth > this.#width) {
      this.#commitRow();
      this.#openRow();
    }
    while (!this.#rowHasWords && this.#rowWidth + this.#wordWidth > this.#width) {
      const room = this.#width - this.#rowWidth;
      if (room <= 0) break;
      const head: Piece[] = [];
      let used = 0;
      while (this.#word.length > 0) {
        const piece = this.#word[0]!;
        const fits = truncate(piece.text, room - used);
        if (fits.length === piece.text.length) {
          head.push(piece);
          used += stringWidth(piece.text);
          this.#word.shift();
          continue;
        }
        if (fits.length > 0) head.push({ text: fits, flags: piece.flags });
        used += stringWidth(fits);
        piece.text = piece.text.slice(fits.length);
        break;
      }
      this.#row.push(...head);
      this.#rowWidth += used;
      this.#wordWidth -= used;
      this.#rowHasWords = true;
      this.#commitRow();
      this.#openRow();
    }
  }

  #placeWord(): void {
    if (this.#word.length === 0) return;
    this.#openRow();
    if (this.#rowHasWords && this.#spaceBefore) {
      this.#row.push({ text: " ", flags: 0 });
      this.#rowWidth += 1;
    }
    this.#row.push(...this.#word);
    this.#rowWidth += this.#wordWidth;
    this.#rowHasWords = true;
    this.#word = [];
    this.#wordWidth = 0;
    this.#spaceBefore = false;
  }

  #openRow(): void {
    if (this.#rowOpen) return;
    const block = this.#block;
    const prefix = block === undefined ? "" : this.#lineRows === 0 ? block.first : block.continuation;
    const width = block === undefined ? 0 : this.#lineRows === 0 ? block.firstWidth : block.continuationWidth;
    this.#row = prefix.length > 0 ? [{ text: prefix, flags: 0 }] : [];
    this.#rowWidth = width;
    this.#rowOpen = true;
    this.#rowHasWords = false;
  }

  #commitRow(): void {
    this.#writeRow(renderPieces(this.#row));
    this.#rowOpen = false;
    this.#row = [];
    this.#rowWidth = 0;
    this.#rowHasWords = false;
    this.#lineRows += 1;
  }

  #commitRawLine(): void {
    this.#writeRow(this.#renderRaw(this.#rawLine));
    this.#rawLine = "";
    this.#lineRows += 1;
  }

  #renderRaw(text: string): string {
    const block = this.#block!;
    const prefix = this.#lineRows === 0 ? block.first : block.continuation;
    if (block.kind === "code") return text.length === 0 ? "" : `${prefix}${sgr(Style.code)}${text}${RESET}`;
    // A piece of a table row cut by other output (settle): as typed, the pipes dimmed.
    return `${prefix}${renderPieces(typedRow(text))}`;
  }

  #writeRow(rendered: string): void {
    const blank = this.#blankPending ? "\n" : "";
    this.#blankPending = false;
    this.#write(`${this.#drawn.length > 0 ? CLEAR_ROW : ""}${blank}${rendered}\n`);
    this.#drawn = "";
    this.#wroteRows = true;
  }

  /** Redraws the current row: decided words, then the undecided tail as it stands. */
  #draw(): void {
    let shown: string;
    if (this.#block === undefined) shown = truncate(this.#head, this.#width);
    else if (this.#block.kind === "code" || this.#block.kind === "table") {
      const prefix = this.#lineRows === 0 ? this.#block.first : this.#block.continuation;
      const room =
        this.#width - (this.#lineRows === 0 ? this.#block.firstWidth : this.#block.continuationWidth);
      const text = truncate(this.#rawLine, room);
      shown =
        this.#rawLine.length === 0
          ? ""
          : `${prefix}${this.#block.kind === "code" ? `${sgr(Style.code)}${text}${RESET}` : text}`;
    } else {
      const pending = this.#scanner?.pending ?? "";
      if (!this.#rowOpen && this.#word.length === 0 && pending.length === 0) shown = "";
      else {
        this.#openRow();
        const space =
          this.#rowHasWords && this.#spaceBefore && (this.#word.length > 0 || pending.length > 0) ? " " : "";
        const used = this.#rowWidth + space.length + this.#wordWidth;
        const tail = truncate(pending.replace(/\n/g, " "), this.#width - used);
        shown = `${renderPieces(this.#row)}${space}${renderPieces(this.#word)}${tail}`;
        if (!this.#rowHasWords && this.#word.length === 0 && tail.length === 0) shown = "";
      }
    }
    if (shown === "" && this.#tableLines.length > 0) {
      const rows = this.#tableLines.length;
      shown = `${sgr(Style.dim)}(a table: ${rows} ${rows === 1 ? "row" : "rows"} so far)${RESET}`;
    }
    if (shown === this.#drawn) return;
    if (this.#blankPending && shown.length > 0) {
      this.#write("\n");
      this.#blankPending = false;
    }
    this.#write(`${CLEAR_ROW}${shown}`);
    this.#drawn = shown;
  }
}

/** A whole markdown text rendered for a terminal `width` columns wide (`--no-stream`). */
export function renderMarkdown(text: string, width: number, options: { styles?: boolean } = {}): string {
  const parts: string[] = [];
  const stream = new MarkdownStream(width, (part) => parts.push(part), options);
  stream.push(text);
  stream.finish();
  return parts.join("");
}
