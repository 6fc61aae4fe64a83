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

/** Width in terminal columns, counting each code point as one (good enough for ids and numbers). */
function displayWidth(text: string): number {
  return [...text].length;
}

/** Cuts `text` to at most `limit` code points, ending in `…` when cut. */
export function truncateText(text: string, limit: number): string {
  const characters = [...text];
  return characters.length <= limit ? text : `${characters.slice(0, Math.max(0, limit - 1)).join("")}…`;
}
