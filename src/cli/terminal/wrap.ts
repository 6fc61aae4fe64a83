/**
 * Wrapping text at words for a terminal of a given width (`print` at a terminal), so no word is
 * cut in two by the terminal's own wrapping. A line that fits is kept as it is; a longer one
 * breaks at its last space that fits, its continuation rows indented as the line is (a quoted
 * message's two spaces stay); a word longer than a row is cut where the row ends. Widths are
 * terminal columns (wide characters count two), and colour sequences take none.
 */
import stringWidth from "string-width";

const SGR = /\u001b\[[0-9;]*m/g;

/** The columns `text` takes at a terminal. */
function columnsOf(text: string): number {
  return stringWidth(text.replace(SGR, ""));
}

/** `text` with every line wider than `columns` wrapped at words (see the module comment). */
export function wrapAtWords(text: string, columns: number): string {
  if (!Number.isFinite(columns) || columns < 20) return text;
  return text
    .split("\n")
    .map((line) => (columnsOf(line) <= columns ? line : wrapLine(line, columns).join("\n")))
    .join("\n");
}

function wrapLine(line: string, columns: number): string[] {
  const indent = /^ */.exec(line.replace(SGR, ""))![0];
  // An indent that leaves no room would only make every row a cut word.
  const continuation = indent.length <= columns / 2 ? indent : "";
  const rows: string[] = [];
  let row = "";
  let width = 0;
  for (const piece of line.split(/( +)/)) {
    if (piece === "") continue;
    const pieceWidth = columnsOf(piece);
    if (width + pieceWidth <= columns) {
      row += piece;
      width += pieceWidth;
      continue;
    }
    if (/^ +$/.test(piece)) {
      // Spaces where a row ends are the break itself.
      rows.push(row);
      row = continuation;
      width = continuation.length;
      continue;
    }
    if (width > continuation.length) {
      rows.push(row.trimEnd());
      row = continuation;
      width = continuation.length;
    }
    for (const character of [...piece]) {
      const characterWidth = columnsOf(character);
      if (width + characterWidth > columns && width > continuation.length) {
        rows.push(row);
        row = continuation;
        width = continuation.length;
      }
      row += character;
      width += characterWidth;
    }
  }
  rows.push(row);
  return rows;
}
