/**
 * Markdown rendered as it streams: text shows before its line ends, rows above the current one
 * are written once, the same screen results whatever the delta boundaries (every answer the tests
 * send, split at every point), inline styles apply in list items too, and tables are held until
 * they end and printed aligned.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  MAX_HELD_TABLE_ROWS,
  MarkdownStream,
  renderMarkdown,
} from "../../src/cli/terminal/markdown-stream.js";
import { sanitizeTerminalText } from "../../src/core/present/sanitize.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

const CLEAR_ROW = "\r\u001b[2K";
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * A terminal just capable enough for the renderer: newlines, and carriage return + clear line,
 * which may only erase the current row. Returns the rows on screen, styles kept.
 */
function screenOf(output: string): string[] {
  const rows = [""];
  for (const piece of output.split(/(\r\u001b\[2K|\n)/)) {
    if (piece === CLEAR_ROW) rows[rows.length - 1] = "";
    else if (piece === "\n") rows.push("");
    else rows[rows.length - 1] += piece;
  }
  return rows;
}

const plain = (rows: readonly string[]) => rows.map((row) => row.replace(SGR, ""));

function stream(deltas: readonly string[], width = 60): { writes: string[]; screen: () => string[] } {
  const writes: string[] = [];
  const markdown = new MarkdownStream(width, (text) => writes.push(text));
  for (const delta of deltas) markdown.push(delta);
  markdown.finish();
  return { writes, screen: () => screenOf(writes.join("")) };
}

const ANSWER = [
  "# Plan",
  "",
  "Some **bold**, *italic* and `code` words, a [link](https://example.org) and ~~gone~~ text that runs long enough to wrap at the width.",
  "",
  "1. **Parse** the input",
  "2. Run `cxc q`",
  "   and go on",
  "- a *bullet*",
  "  - nested",
  "",
  "> quoted",
  "",
  "| a | b |",
  "|---|---|",
  "",
  "---",
  "```ts",
  "const a = 1;",
  "",
  "  const b = `x` ** 2;",
  "```",
  "snake_case_name, 2 * 3 and a \\*literal\\*.",
].join("\n");

/** Answers that stress the line starts, fences and tables. */
const TRICKY = [
  "Here:\n```js\nm();\n```\nafter",
  "```\ncode\n```",
  "1. Run:\n   ```sh\n   npm ci\n   ```\n2. Then `go`.\n",
  "~~~~\n~~~\nstill code\n~~~~\n- item\n---\n***\n# Title\n> quote\n",
  "| Name | Size |\n|:-----|-----:|\n| a | 1 |\n| **long name** | 12345 |\n\nAfter the table.",
  "| only | a row |\nnot a table",
  "  | indented | table |\n  |---|:---:|\n  | x | y |\n",
  "| a \\| b | c |\n|---|---|\n| `x|y` | z |\n",
];

/** Every answer the fake provider sends in the test suite, as written in the test files. */
function answersInTheTests(): string[] {
  const answers = new Set<string>([ANSWER, ...TRICKY]);
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) {
        const text = readFileSync(path, "utf8");
        // What the renderer is given: the display sanitizes every delta first (turn-display.ts).
        for (const match of text.matchAll(/(?:textReply\(|type: "text", text: )("(?:[^"\\\n]|\\.)*")/g))
          answers.add(sanitizeTerminalText(JSON.parse(match[1]!) as string));
      }
    }
  };
  walk(join(PROJECT_ROOT, "test"));
  return [...answers];
}

describe("MarkdownStream", () => {
  it("renders every answer in the tests the same at every split point, one character at a time too", () => {
    const answers = answersInTheTests();
    expect(answers.length).toBeGreaterThan(150);
    const differing: string[] = [];
    for (const answer of answers) {
      const whole = stream([answer]).screen();
      for (let at = 1; at < answer.length; at++) {
        const split = stream([answer.slice(0, at), answer.slice(at)]);
        if (JSON.stringify(split.screen()) !== JSON.stringify(whole))
          differing.push(`${JSON.stringify(answer)} split at ${at}`);
        for (const write of split.writes)
          expect(write.replace(/^\r\u001b\[2K/, "")).not.toMatch(/\r|\u001b\[[0-9]*[ABJ]/);
      }
      if (JSON.stringify(stream([...answer]).screen()) !== JSON.stringify(whole))
        differing.push(`${JSON.stringify(answer)} one character at a time`);
    }
    expect(differing).toEqual([]);
  });

  it("recognizes a closing fence split over two chunks, even when other output comes between", () => {
    const plainScreen = (deltas: readonly string[], settleAfter: number) => {
      const writes: string[] = [];
      const markdown = new MarkdownStream(60, (text) => writes.push(text));
      deltas.forEach((delta, index) => {
        markdown.push(delta);
        if (index === settleAfter) {
          markdown.settle();
          writes.push("[other output]\n");
        }
      });
      markdown.finish();
      return plain(screenOf(writes.join("")));
    };
    const expected = ["Here:", "  m();", "[other output]", "after", ""];
    expect(plainScreen(["Here:\n```js\nm();\n``", "`\nafter"], 0)).toEqual(expected);
    // A line start a settle found undecided is decided by its characters, never by the settle.
    expect(plainScreen(["text\n-", "-- \nafter"], 0)).toEqual([
      "text",
      "[other output]",
      "─".repeat(60),
      "after",
      "",
    ]);
    expect(plainScreen(["text\n1", ". item\n"], 0)).toEqual(["text", "[other output]", "1. item", ""]);
  });

  it("renders the same screen whatever the delta boundaries", () => {
    const whole = stream([ANSWER]).screen();
    expect(stream([...ANSWER]).screen()).toEqual(whole);
    const chunks = ANSWER.match(/[\s\S]{1,7}/g)!;
    expect(stream(chunks).screen()).toEqual(whole);
    expect(plain(whole)).toEqual([
      "Plan",
      "",
      "Some bold, italic and code words, a link",
      "(https://example.org) and gone text that runs long enough to",
      "wrap at the width.",
      "",
      "1. Parse the input",
      "2. Run cxc q",
      "   and go on",
      "• a bullet",
      "  • nested",
      "",
      "│ quoted",
      "",
      "| a | b |",
      "|---|---|",
      "",
      "─".repeat(60),
      "  const a = 1;",
      "",
      "    const b = `x` ** 2;",
      "snake_case_name, 2 * 3 and a *literal*.",
      "",
    ]);
  });

  it("keeps lines whose start stayed undecided until they ended", () => {
    expect(plain(stream(["2024\n#\n--\n**\n- \n`` x\n"]).screen())).toEqual([
      "2024",
      "#",
      "--",
      "**",
      "-",
      "`` x",
      "",
    ]);
  });

  it("styles inline markdown in list items", () => {
    const rows = stream(["1. **Parse** the `input`\n"]).screen();
    expect(rows[0]).toBe("1. \u001b[1mParse\u001b[0m the \u001b[33minput\u001b[0m");
  });

  it("shows a line's words before the line ends, and never rewrites a finished row", () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(40, (text) => writes.push(text));
    markdown.push("The first words of a long");
    expect(plain(screenOf(writes.join("")))).toEqual(["The first words of a long"]);
    markdown.push(" paragraph that wraps onto a second row **and");
    expect(plain(screenOf(writes.join("")))).toEqual([
      "The first words of a long paragraph that",
      "wraps onto a second row and",
    ]);
    markdown.push(" more**\n");
    markdown.finish();
    // Every write erases at most the row it is on: no cursor movement up, ever.
    for (const write of writes)
      expect(write.replace(/^\r\u001b\[2K/, "")).not.toMatch(/\r|\u001b\[[0-9]*[ABJ]/);
    const rows = screenOf(writes.join(""));
    expect(rows[1]).toBe("wraps onto a second row \u001b[1mand\u001b[0m \u001b[1mmore\u001b[0m");
  });

  it("streams code fence lines as code before they end", () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(40, (text) => writes.push(text));
    markdown.push("```js\nconsole.log(");
    expect(plain(screenOf(writes.join("")))).toEqual(["  console.log("]);
    markdown.push('"**not bold**")\n```\n');
    markdown.finish();
    expect(plain(screenOf(writes.join("")))).toEqual(['  console.log("**not bold**")', ""]);
  });

  it("keeps rows within the width, breaking a word longer than a row", () => {
    const rows = plain(stream([`see ${"x".repeat(50)} and 日本語の文章`], 20).screen());
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(20);
    expect(rows.join("")).toContain("x".repeat(16));
  });

  it("settles a row for other output and continues the line after it", () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(40, (text) => writes.push(text));
    markdown.push("- Let me **check");
    markdown.settle();
    writes.push("[tool line]\n");
    markdown.push(" more** of it\n");
    markdown.finish();
    expect(plain(screenOf(writes.join("")))).toEqual(["• Let me check", "[tool line]", "  more of it", ""]);
  });

  it("renders a long fenced block arriving line by line, one row per line", () => {
    // Its speed (each line scanned once) is measured by the bench, not here.
    const writes: string[] = [];
    const markdown = new MarkdownStream(80, (text) => writes.push(text));
    markdown.push("```\n");
    for (let line = 0; line < 20_000; line++) markdown.push(`line ${line} of code\n\n`);
    markdown.push("```\n");
    markdown.finish();
    expect(screenOf(writes.join(""))).toHaveLength(40_001);
  });

  it("renders a whole text at once (--no-stream) without redraws", () => {
    const output = renderMarkdown("All **at once**.\n", 40);
    expect(output).toBe("All \u001b[1mat\u001b[0m \u001b[1monce\u001b[0m.\n");
    expect(renderMarkdown("All **at once**.\n", 40, { styles: false })).toBe("All at once.\n");
  });
});

describe("tables", () => {
  it("holds a table's rows until it ends and prints them aligned, keeping the alignment markers", () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(60, (text) => writes.push(text));
    markdown.push("| Name | Size |\n|:-----|-----:|\n| a | 1 |\n");
    // Nothing of the table is printed yet: only the current row says one is coming.
    expect(plain(screenOf(writes.join("")))).toEqual(["(a table: 3 rows so far)"]);
    markdown.push("| **long name** | 12345 |\n\nAfter.\n");
    markdown.finish();
    expect(plain(screenOf(writes.join("")))).toEqual([
      "| Name      |  Size |",
      "|:----------|------:|",
      "| a         |     1 |",
      "| long name | 12345 |",
      "",
      "After.",
      "",
    ]);
    // The bold cell keeps its style; the pipes are dimmed.
    expect(screenOf(writes.join(""))[3]).toContain("\u001b[1mlong name\u001b[0m");
    expect(screenOf(writes.join(""))[3]).toContain("\u001b[2m|\u001b[0m");
  });

  it("centres, keeps escaped pipes and code spans in their cells, and pads short rows", () => {
    expect(plain(stream(["| a \\| b | c | d |\n|:-:|---|---|\n| `x` | z |\n"]).screen())).toEqual([
      "| a | b | c | d |",
      "|:-----:|---|---|",
      "|   x   | z |   |",
      "",
    ]);
  });

  it("shows rows without a delimiter row, and a table wider than the terminal, as typed", () => {
    expect(plain(stream(["| only | a row |\nnot a table\n"]).screen())).toEqual([
      "| only | a row |",
      "not a table",
      "",
    ]);
    const wide = `| ${"x".repeat(30)} | ${"y".repeat(30)} |\n|---|---|\n| a | b |\n`;
    expect(plain(stream([wide], 40).screen())).toEqual([...wide.trimEnd().split("\n"), ""]);
  });

  it(`holds at most ${MAX_HELD_TABLE_ROWS} rows, then prints the rest as they come, padded to the widths learnt`, () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(60, (text) => writes.push(text));
    // The header and the delimiter row count among the rows held.
    markdown.push("| n | square |\n|---|---|\n");
    for (let row = 1; row <= MAX_HELD_TABLE_ROWS - 2; row++) markdown.push(`| ${row} | ${row * row} |\n`);
    expect(plain(screenOf(writes.join("")))).toEqual([`(a table: ${MAX_HELD_TABLE_ROWS} rows so far)`]);
    markdown.push(`| ${MAX_HELD_TABLE_ROWS - 1} | ${(MAX_HELD_TABLE_ROWS - 1) ** 2} |\n`);
    const printed = plain(screenOf(writes.join("")));
    expect(printed).toHaveLength(MAX_HELD_TABLE_ROWS + 2);
    expect(printed[0]).toBe("| n   | square |");
    markdown.push("| 1000 | 1000000 |\n");
    expect(plain(screenOf(writes.join(""))).slice(-3)).toEqual([
      "| 199 | 39601  |",
      "| 1000 | 1000000 |",
      "",
    ]);
    markdown.finish();
    // Rows printed before the end were never rewritten.
    for (const write of writes)
      expect(write.replace(/^\r\u001b\[2K/, "")).not.toMatch(/\r|\u001b\[[0-9]*[ABJ]/);
  });

  it("prints a held table before other output (settle)", () => {
    const writes: string[] = [];
    const markdown = new MarkdownStream(60, (text) => writes.push(text));
    markdown.push("| a | b |\n|---|---|\n| 1 | 2 |\n");
    markdown.settle();
    writes.push("[tool line]\n");
    markdown.finish();
    expect(plain(screenOf(writes.join("")))).toEqual([
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "[tool line]",
      "",
    ]);
  });
});
