/**
 * Block-by-block markdown streaming: a block is rendered once it ends (a blank line outside a
 * code fence), never in pieces, and the rest on flush.
 */
import { describe, expect, it } from "vitest";
import { MarkdownStream } from "../../src/cli/terminal/markdown-stream.js";

function collect(deltas: string[]): string[] {
  const rendered: string[] = [];
  const stream = new MarkdownStream(
    (text) => `<${text}>`,
    (text) => rendered.push(text),
  );
  for (const delta of deltas) stream.push(delta);
  rendered.push("|flush|");
  stream.flush();
  return rendered;
}

describe("MarkdownStream", () => {
  it("renders each finished paragraph once, whatever the delta boundaries", () => {
    const text = "First *para*\ngraph.\n\nSecond one.\n\nThird";
    const whole = collect([text]);
    const characters = collect([...text]);
    expect(whole).toEqual(["<First *para*\ngraph.\n\n>\n", "<Second one.\n\n>\n", "|flush|", "<Third>\n"]);
    expect(characters).toEqual(whole);
  });

  it("keeps a code fence with blank lines in one block", () => {
    const rendered = collect(["```ts\nconst a = 1;\n\nconst b = 2;\n```\n", "\nafter\n"]);
    expect(rendered[0]).toBe("<```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n>\n");
    expect(rendered.slice(1)).toEqual(["|flush|", "<after\n>\n"]);
  });

  it("holds a long fenced block arriving line by line and renders it once, whole", () => {
    // Its speed (each line scanned once) is measured by the bench, not here.
    const rendered: string[] = [];
    const stream = new MarkdownStream(
      (text) => text,
      (text) => rendered.push(text),
    );
    stream.push("```\n");
    for (let line = 0; line < 20_000; line++) stream.push(`line ${line} of code\n\n`);
    stream.push("```\n");
    expect(rendered).toEqual([]);
    stream.flush();
    expect(rendered).toHaveLength(1);
    expect(rendered[0]!.split("\n")).toHaveLength(40_003);
  });
});
