/**
 * Markdown rendered as it streams: text shows before its line ends, rows above the current one
 * are written once, the same screen results whatever the delta boundaries, and inline styles
 * apply in list items too.
 */
import { describe, expect, it } from "vitest";
import { MarkdownStream, renderMarkdown } from "../../src/cli/terminal/markdown-stream.js";

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

describe("MarkdownStream", () => {
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
