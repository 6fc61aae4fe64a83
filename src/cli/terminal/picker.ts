/**
 * The conversation picker (jp's `?` targets): a searchable list on stderr, one row per
 * conversation with its title, where it came from, its turns and how long ago it was updated.
 * Typing narrows the list (title, id or source, any case); Enter takes the highlighted row, Esc or
 * Ctrl-C gives up (exit 130, nothing changed), and the prompt line says so. Only opened at a
 * terminal: the caller checks (src/cli/targets.ts).
 *
 * @inquirer/prompts is an island (tsup.config.ts), loaded when the picker opens, so no other
 * command pays for it.
 */
import { formatCount } from "../../core/present/labels.js";
import { formatRelativeTime } from "../../core/present/relative-time.js";
import { sanitizeLine } from "../../core/present/sanitize.js";
import { CxcError } from "../../errors.js";
import { truncateText } from "../render/table.js";
import { emitKeypressEvents } from "node:readline";
import { loadPrompts } from "./island-loaders.js";

/** One conversation the picker offers. */
export interface PickerItem {
  readonly id: string;
  readonly title: string;
  /** Where it came from, as `ls` names it (`cxc`, `jp`, `Claude Code`, …). */
  readonly source: string;
  readonly turns: number;
  readonly updatedAt: string;
}

const TITLE_WIDTH = 48;

/** The row of each item: title, source, turns and age in aligned columns. */
function pickerRows(items: readonly PickerItem[], now: number): string[] {
  const cells = items.map((item) => [
    truncateText(sanitizeLine(item.title), TITLE_WIDTH),
    sanitizeLine(item.source),
    formatCount(item.turns, "turn"),
    formatRelativeTime(item.updatedAt, now),
  ]);
  const widths = [0, 1, 2].map((column) => Math.max(0, ...cells.map((row) => [...row[column]!].length)));
  return cells.map((row) =>
    row
      .map((cell, column) => (column < 3 ? cell + " ".repeat(widths[column]! - [...cell].length) : cell))
      .join("  "),
  );
}

/** The items whose title, id or source contains `term` (any case); all of them without one. */
function filterItems(items: readonly PickerItem[], term: string | undefined): PickerItem[] {
  const wanted = term?.trim().toLowerCase();
  if (!wanted) return [...items];
  return items.filter((item) =>
    [item.title, item.id, item.source].some((text) => text.toLowerCase().includes(wanted)),
  );
}

/** Opens the picker over `items` (at least one) and returns the id chosen. */
export async function pickConversation(
  items: readonly PickerItem[],
  options: { readonly message: string; readonly now: number },
): Promise<string> {
  const { search } = await loadPrompts();
  const rendered = pickerRows(items, options.now);
  const rows = new Map(items.map((item, index) => [item.id, rendered[index]!]));
  // Esc gives up as Ctrl-C does: the prompt has no key of its own for it.
  const cancelled = new AbortController();
  const onKey = (_text: string | undefined, key: { name?: string } | undefined): void => {
    if (key?.name === "escape") cancelled.abort();
  };
  emitKeypressEvents(process.stdin);
  process.stdin.on("keypress", onKey);
  try {
    return await search<string>(
      {
        message: `${options.message} (type to narrow, Enter picks, Esc cancels)`,
        source: (term) =>
          filterItems(items, term).map((item) => ({
            value: item.id,
            name: rows.get(item.id)!,
            short: item.id,
          })),
        pageSize: 12,
      },
      { output: process.stderr, signal: cancelled.signal },
    );
  } catch (error) {
    const name = (error as Error).name;
    if (name === "ExitPromptError" || name === "AbortPromptError") {
      throw new CxcError("interrupted", "no conversation picked; nothing changed");
    }
    throw error;
  } finally {
    process.stdin.off("keypress", onKey);
  }
}
