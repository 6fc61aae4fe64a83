/**
 * Local command tools: placeholders are quoted, arguments are validated before running, exit
 * status and timeouts are reported, output is cut at the ceiling.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import {
  createLocalCommandTool,
  fillPlaceholders,
  parseLocalCommandConfig,
  shellQuote,
} from "../../src/tools/local-command.js";
import { createMemoryStore } from "../../src/store/index.js";
import type { ToolCallContext } from "../../src/tools/tool.js";

const context: ToolCallContext = {
  conversationId: "conv",
  callId: "call",
  events: [],
  signal: new AbortController().signal,
  cwd: tmpdir(),
  store: await createMemoryStore(),
  newEventId: () => "id",
  now: () => "now",
};

describe("placeholders", () => {
  it("shell-quotes values so they cannot inject syntax", () => {
    expect(fillPlaceholders("echo {{text}}", { text: "a'; rm -rf /" }, shellQuote)).toBe(
      `echo 'a'\\''; rm -rf /'`,
    );
    expect(fillPlaceholders("x {{ n }} {{missing}}", { n: 3 }, (value) => `[${value}]`)).toBe("x [3] []");
  });
});

describe("createLocalCommandTool", () => {
  it("runs the command with the arguments as placeholders, stdin and environment", async () => {
    const tool = createLocalCommandTool("show", {
      command: 'printf "%s|" {{word}}; cat; printf "|%s" "$CXC_TOOL_NAME"',
    });
    const outcome = await tool.run({ word: "it's" }, context);
    expect(outcome).toEqual({ isError: false, content: `it's|{"word":"it's"}|show` });
  });

  it("runs the array form without a shell", async () => {
    const tool = createLocalCommandTool("echo", { command: ["echo", "{{text}}", "$HOME"] });
    expect((await tool.run({ text: "a b; c" }, context)).content).toBe("a b; c $HOME\n");
  });

  it("validates arguments before running, applying schema defaults", async () => {
    const tool = createLocalCommandTool("count", {
      command: "echo {{n}}",
      parameters: {
        type: "object",
        properties: { n: { type: "integer", default: 7 } },
        additionalProperties: false,
      },
    });
    expect(await tool.run({}, context)).toEqual({ isError: false, content: "7\n" });
    const invalid = await tool.run({ n: "x", extra: 1 }, context);
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toContain("Invalid arguments for count:");
    expect(invalid.content).toContain("/n must be integer");
  });

  it("reports a schema that does not compile as a tool error naming the key", async () => {
    const tool = createLocalCommandTool("bad", { command: "true", parameters: { type: "nonsense" } });
    const outcome = await tool.run({}, context);
    expect(outcome).toMatchObject({ isError: true });
    expect(outcome.content).toContain("conversation.tools.bad.parameters is not a valid JSON Schema");
  });

  it("reports a non-zero exit, a timeout and output beyond the ceiling", async () => {
    const failing = createLocalCommandTool("f", { command: "echo out; exit 4" });
    expect(await failing.run({}, context)).toEqual({ isError: true, content: "out\n[exit status 4]" });
    const slow = createLocalCommandTool("s", { command: "sleep 5", timeout_secs: 0.2 });
    expect(await slow.run({}, context)).toEqual({ isError: true, content: "[timed out after 0.2s]" });
    const loud = createLocalCommandTool("l", { command: "yes | head -c 100000", max_output_bytes: 1000 });
    const outcome = await loud.run({}, context);
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("[output cut at 1000 bytes");
    expect(outcome.content.length).toBeLessThan(1200);
  });

  it("parses configuration entries and explains what is wrong", () => {
    expect(parseLocalCommandConfig("t", { command: "ls", timeout_secs: 3, description: "d" })).toEqual({
      command: "ls",
      timeout_secs: 3,
      description: "d",
    });
    expect(parseLocalCommandConfig("t", { command: [] })).toContain("conversation.tools.t.command");
    expect(parseLocalCommandConfig("t", { command: "ls", parameters: [] })).toContain("JSON Schema object");
  });
});
