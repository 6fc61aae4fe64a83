/**
 * Plain-text tables for listings: left-aligned columns padded with spaces, an optional header,
 * no borders (so `cut`, `awk` and eyes all read them). Cells must already be sanitized.
 */

/** One column: its header and whether it is right-aligned (numbers). */
export interface TableColumn {
  readonly header: string;
  readonly alignRight?: boolean;
}

/** Renders rows under the given columns; the last column is never padded (titles run free). */
export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => displayWidth(row[index] ?? ""))),
  );
  const renderRow = (cells: readonly string[]): string =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? "";
        if (index === columns.length - 1) return cell;
        const padding = " ".repeat(Math.max(0, widths[index]! - displayWidth(cell)));
        return column.alignRight ? padding + cell : cell + padding;
      })
      .join("  ")
      .trimEnd();
  return [renderRow(columns.map((column) => column.header)), ...rows.map(renderRow)].join("\n");
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Width in terminal columns, counting each code point as one (good enough for ids and numbers).
 * Counts without building an array: a listing measures thousands of cells.
 */
function displayWidth(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let width = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width -= 1;
        index += 1;
      }
    }
  }
  return width;
}

/** Cuts `text` to at most `limit` code points, ending in `…` when cut. */
export function truncateText(text: string, limit: number): string {
  // A string of at most `limit` UTF-16 units has at most `limit` code points.
  if (text.length <= limit) return text;
  const characters = [...text];
  return characters.length <= limit ? text : `${characters.slice(0, Math.max(0, limit - 1)).join("")}…`;
}
