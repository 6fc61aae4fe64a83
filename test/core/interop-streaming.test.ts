/**
 * The Claude Code and pi importers read a session in two passes (agent-session.ts): an index of
 * the records, then the records on the conversation's chain, converted and handed out as they
 * settle. Here: what they make of the committed sessions and their variants is what the one-pass
 * importers made before them (test/core/golden/agent-import.json, written by that code, with the
 * usage each request reported added on the last event of its answer since), fed
 * whole or line by line; events come out before the end; a file that changes between the passes
 * is refused, naming the line. Each line is parsed once: pass 2 converts the records pass 1 kept,
 * and gives what it gives from the lines read again.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import {
  type AgentImport,
  importSessionText,
  type SessionIndexer,
} from "../../src/core/interop/agent-session.js";
import { ClaudeCodeSessionReader, importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { CodexSessionReader } from "../../src/core/interop/codex.js";
import { importPiSession, PiSessionReader } from "../../src/core/interop/pi.js";
import { claudeCodeVariants, piVariants } from "../helpers/agent-session-variants.js";

const golden = JSON.parse(
  readFileSync(fileURLToPath(new URL("golden/agent-import.json", import.meta.url)), "utf8"),
) as Record<"claude-code" | "pi", Record<string, AgentImport>>;

/** Both passes as the shell runs them: every line fed again, each batch of events kept apart. */
function streamed(text: string, indexer: SessionIndexer) {
  const lines = text.split("\n");
  const fragment = lines.pop() ?? "";
  for (const line of lines) expect(indexer.addLine(line)).toEqual({ ok: true, value: undefined });
  expect(indexer.addFinalFragment(fragment).ok).toBe(true);
  const plan = indexer.finish();
  if (!plan.ok) throw new Error(plan.message);
  const converter = plan.value.convert();
  const batches: ConversationEvent[][] = [];
  for (const [index, line] of [...lines, fragment].slice(0, plan.value.lines).entries()) {
    const converted = converter.addLine(line, index + 1);
    if (!converted.ok) throw new Error(converted.message);
    batches.push(converted.value);
  }
  const end = converter.finish();
  if (!end.ok) throw new Error(end.message);
  const { title, summary, warnings } = end.value;
  const result: AgentImport = {
    conversation: {
      ...plan.value.conversation,
      ...(title === undefined ? {} : { title }),
      events: [...batches.flat(), ...end.value.events],
    },
    summary,
    warnings,
  };
  return { result, plan: plan.value, early: batches.flat(), held: end.value.events };
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

const agents = [
  {
    agent: "claude-code" as const,
    variants: claudeCodeVariants(),
    whole: importClaudeCodeSession,
    reader: (label: string) => new ClaudeCodeSessionReader(label),
  },
  {
    agent: "pi" as const,
    variants: piVariants(),
    whole: importPiSession,
    reader: (label: string) => new PiSessionReader(label),
  },
];

describe.each(agents)("$agent import in two passes", ({ agent, variants, whole, reader }) => {
  it.each(Object.keys(variants))("%s: the conversation the one-pass importer made", (name) => {
    const expected = golden[agent][name];
    expect(expected).toBeDefined();
    const result = whole(variants[name]!, "session.jsonl");
    expect(result.ok && plain(result.value)).toEqual(expected);
    expect(plain(streamed(variants[name]!, reader("session.jsonl")).result)).toEqual(expected);
  });

  it("hands out events as they settle (the last one at the end) and reads again only the chain's lines", () => {
    const { early, held, plan, result } = streamed(variants.fixture!, reader("session.jsonl"));
    expect(early.filter((event) => event.type === "turn_start")).toHaveLength(result.summary.turns);
    expect(held).toEqual([result.conversation.events.at(-1)]);
    const lines = variants.fixture!.trimEnd().split("\n");
    const wanted = lines.filter((_, index) => plan.wants(index + 1));
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.length).toBeLessThan(lines.length);
    expect(wanted.every((line) => !/"type":"(queue-operation|last-prompt|session)"/.test(line))).toBe(true);
  });

  it("refuses a file that changed between the passes, naming the line", () => {
    const text = variants.fixture!;
    const indexer = reader("session.jsonl");
    const lines = text.trimEnd().split("\n");
    for (const line of lines) indexer.addLine(line);
    const plan = indexer.finish();
    if (!plan.ok) throw new Error(plan.message);
    const converter = plan.value.convert();
    const first = lines.findIndex((_, index) => plan.value.wants(index + 1));
    const other = lines.findIndex((_, index) => index > first && plan.value.wants(index + 1));
    const converted = converter.addLine(lines[other]!, first + 1);
    expect(converted).toEqual({
      ok: false,
      message: `session.jsonl:${first + 1}: the file changed while cxc read it; import it again`,
    });
  });
});

describe("each line parsed once", () => {
  const fixture = (agent: string) =>
    readFileSync(
      fileURLToPath(new URL(`../../fixtures/agents/${agent}/session.jsonl`, import.meta.url)),
      "utf8",
    );
  const readers = [
    { agent: "claude-code", reader: (keep: boolean) => new ClaudeCodeSessionReader("session.jsonl", keep) },
    { agent: "codex", reader: (keep: boolean) => new CodexSessionReader("session.jsonl", keep) },
    { agent: "codex-encrypted", reader: (keep: boolean) => new CodexSessionReader("session.jsonl", keep) },
    { agent: "pi", reader: (keep: boolean) => new PiSessionReader("session.jsonl", keep) },
  ];

  it.each(readers)(
    "$agent: pass 2 converts the records pass 1 kept, as it converts the lines read again",
    ({ agent, reader }) => {
      const text = fixture(agent);
      const lines = text.split("\n").filter((line) => line.trim() !== "");
      const known = new Set(lines);
      // The file's lines among what was parsed (Codex's tool arguments are JSON text of their own).
      const parsedLines = () => parse.mock.calls.filter(([value]) => known.has(value as string)).length;
      const parse = vi.spyOn(JSON, "parse");
      try {
        const once = importSessionText(text, reader(true));
        expect(parsedLines()).toBe(lines.length);
        parse.mockClear();
        const twice = importSessionText(text, reader(false));
        expect(parsedLines()).toBeGreaterThan(lines.length);
        expect(once.ok).toBe(true);
        expect(plain(once)).toEqual(plain(twice));
      } finally {
        parse.mockRestore();
      }
    },
  );

  it("a reader told not to keep them keeps no records", () => {
    const indexer = new ClaudeCodeSessionReader("session.jsonl", false);
    for (const line of fixture("claude-code").trimEnd().split("\n")) indexer.addLine(line);
    const plan = indexer.finish();
    expect(plan.ok && plan.value.records).toBeUndefined();
  });
});
