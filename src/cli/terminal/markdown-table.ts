/**
 * Markdown tables for a terminal, aligned (docs/query.md, "At a terminal"). The streaming renderer
 * (markdown-stream.ts) holds a table's rows until the table ends, then prints them here with every
 * column as wide as its widest cell; rows are never printed before their widths are known, so no
 * printed row is ever rewritten. A table of more rows than the renderer holds is printed with the
 * widths of the rows held so far, and its later rows as they come, each padded to those widths.
 *
 * A table is GFM's: a header row, a delimiter row (`|---|:--:|`, a colon for the alignment), body
 * rows; cells split at `|` not escaped by a backslash. Cells keep their inline markdown
 * (markdown-inline.ts). Rows without a delimiter row second are not a table: they are shown as
 * typed, as is a table wider than the terminal (aligning it would wrap every row).
 */
import stringWidth from "string-width";
import { InlineScanner, Style } from "./markdown-inline.js";

/** A piece of rendered text and its style. */
export interface TablePiece {
  readonly text: string;
  readonly flags: number;
}

/** A column's alignment as its delimiter cell marks it (`:--`, `--:`, `:-:`; none: left). */
interface Alignment {
  readonly left: boolean;
  readonly right: boolean;
}

/** The cells of a table row: the text between unescaped pipes, trimmed, outer pipes dropped. */
export function tableCells(line: string): string[] {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (character === "\\" && text[index + 1] === "|") {
      current += "\\|";
      index += 1;
    } else if (character === "|") {
      cells.push(current.trim());
      current = "";
    } else current += character;
  }
  cells.push(current.trim());
  return cells;
}

/** Whether `line` is a delimiter row (`|---|:---:|`), and its alignments. */
function delimiterAlignments(line: string): Alignment[] | undefined {
  const cells = tableCells(line);
  const alignments: Alignment[] = [];
  for (const cell of cells) {
    const match = /^(:?)-+(:?)$/.exec(cell);
    if (match === null) return undefined;
    alignments.push({ left: match[1] === ":", right: match[2] === ":" });
  }
  return alignments;
}

/** A cell's inline markdown as styled pieces. */
function cellPieces(cell: string): TablePiece[] {
  const pieces: TablePiece[] = [];
  const scanner = new InlineScanner((text, flags) => pieces.push({ text, flags }));
  scanner.push(cell);
  scanner.end();
  return pieces;
}

function piecesWidth(pieces: readonly TablePiece[]): number {
  return pieces.reduce((width, piece) => width + stringWidth(piece.text), 0);
}

const PIPE: TablePiece = { text: "|", flags: Style.dim };

/** Column widths and alignments of a table, learnt from the rows it has held. */
export class AlignedTable {
  readonly #alignments: Alignment[];
  readonly #widths: number[];
  readonly #indent: string;

  private constructor(alignments: Alignment[], widths: number[], indent: string) {
    this.#alignments = alignments;
    this.#widths = widths;
    this.#indent = indent;
  }

  /**
   * The table the held lines make, or undefined when they are not one (no delimiter row second)
   * or it would not fit in `width` columns.
   */
  static of(lines: readonly string[], width: number): AlignedTable | undefined {
    if (lines.length < 2) return undefined;
    const alignments = delimiterAlignments(lines[1]!);
    if (alignments === undefined) return undefined;
    const indent = /^ */.exec(lines[0]!)![0];
    const widths: number[] = alignments.map(() => 1);
    lines.forEach((line, index) => {
      if (index === 1) return;
      tableCells(line).forEach((cell, column) => {
        widths[column] = Math.max(widths[column] ?? 1, piecesWidth(cellPieces(cell)));
      });
    });
    const total = indent.length + widths.reduce((sum, each) => sum + each + 3, 1);
    if (total > width) return undefined;
    return new AlignedTable(alignments, widths, indent);
  }

  /** One source line of the table as an aligned row (the delimiter row as a rule of dashes). */
  row(line: string, index: number): TablePiece[] {
    const pieces: TablePiece[] = [];
    if (this.#indent.length > 0) pieces.push({ text: this.#indent, flags: 0 });
    if (index === 1) {
      pieces.push(PIPE);
      this.#widths.forEach((columnWidth, column) => {
        const alignment = this.#alignments[column];
        const marked = `${alignment?.left ? ":" : "-"}${"-".repeat(columnWidth)}${alignment?.right ? ":" : "-"}`;
        pieces.push({ text: marked, flags: Style.dim }, PIPE);
      });
      return pieces;
    }
    const cells = tableCells(line);
    pieces.push(PIPE);
    const columns = Math.max(cells.length, this.#widths.length);
    for (let column = 0; column < columns; column++) {
      const content = cellPieces(cells[column] ?? "");
      const room = Math.max(this.#widths[column] ?? 0, piecesWidth(content)) - piecesWidth(content);
      const alignment = this.#alignments[column];
      const centred = alignment?.left === true && alignment.right;
      const left = centred ? Math.floor(room / 2) : alignment?.right ? room : 0;
      pieces.push({ text: ` ${" ".repeat(left)}`, flags: 0 }, ...content);
      pieces.push({ text: `${" ".repeat(room - left)} `, flags: 0 }, PIPE);
    }
    return pieces;
  }
}

/** A table row shown as typed: its cells' inline markdown rendered, the pipes dimmed. */
export function typedRow(line: string): TablePiece[] {
  const pieces: TablePiece[] = [];
  const scanner = new InlineScanner((text, flags) => pieces.push({ text, flags }));
  scanner.push(line);
  scanner.end();
  return pieces
    .flatMap((piece) =>
      piece.text
        .split(/(\|)/)
        .map((part) => ({ text: part, flags: part === "|" ? piece.flags | Style.dim : piece.flags })),
    )
    .filter((piece) => piece.text.length > 0);
}
