// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax, not a JavaScript template
/**
 * Local command tools: arguments are validated before running, exit status and timeouts are
 * reported, output is cut at the ceiling; every payload class in every command form reaches the
 * program as literal text; the environment is minimal and holds no provider key.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ConfigTable } from "../../src/core/config.js";
import { selectTools } from "../../src/query/tool-selection.js";
import { createLocalCommandTool, parseLocalCommandConfig } from "../../src/tools/local-command.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, type ToolCallContext } from "../../src/tools/tool.js";
import { createMemoryStore } from "../../src/store/index.js";
import { caughtCxcError } from "../helpers/errors.js";

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

describe("createLocalCommandTool", () => {
  it("runs the command with the arguments as placeholders, stdin and environment", async () => {
    const tool = createLocalCommandTool("show", {
      command: 'printf "%s|" {{word}}; cat; printf "|%s" "$CXC_TOOL_NAME"',
    });
    const outcome = await callTool(tool, { word: "it's" }, context);
    expect(outcome).toEqual({ isError: false, content: `it's|{"word":"it's"}|show` });
  });

  it("runs the array form without a shell", async () => {
    const tool = createLocalCommandTool("echo", { command: ["echo", "{{text}}", "$HOME"] });
    expect((await callTool(tool, { text: "a b; c" }, context)).content).toBe("a b; c $HOME\n");
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
    expect(await callTool(tool, {}, context)).toEqual({ isError: false, content: "7\n" });
    const invalid = await callTool(tool, { n: "x", extra: 1 }, context);
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toContain("Invalid arguments for count:");
    expect(invalid.content).toContain("/n must be integer");
  });

  it("reports a schema that does not compile as a tool error naming the key", async () => {
    const tool = createLocalCommandTool("bad", { command: "true", parameters: { type: "nonsense" } });
    const outcome = await callTool(tool, {}, context);
    expect(outcome).toMatchObject({ isError: true });
    expect(outcome.content).toContain("conversation.tools.bad.parameters is not a valid JSON Schema");
  });

  it("reports a non-zero exit, a timeout and output beyond the ceiling", async () => {
    const failing = createLocalCommandTool("f", { command: "echo out; exit 4" });
    expect(await callTool(failing, {}, context)).toEqual({ isError: true, content: "out\n[exit status 4]" });
    const slow = createLocalCommandTool("s", { command: "sleep 5", timeout_secs: 0.2 });
    expect(await callTool(slow, {}, context)).toEqual({ isError: true, content: "[timed out after 0.2s]" });
    const loud = createLocalCommandTool("l", { command: "yes | head -c 100000", max_output_bytes: 1000 });
    const outcome = await callTool(loud, {}, context);
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
    expect(parseLocalCommandConfig("t", { command: [] })).toMatchObject({
      problem: expect.stringContaining("conversation.tools.t.command"),
    });
    expect(parseLocalCommandConfig("t", { command: "ls", parameters: [] })).toMatchObject({
      problem: expect.stringContaining("JSON Schema object"),
    });
  });
});

/** Values that would run `touch PWNED` (or split, glob, expand) if the shell parsed them. */
const PAYLOADS: Record<string, string> = {
  "command substitution": "$(touch PWNED)",
  backticks: "`touch PWNED`",
  semicolon: "x; touch PWNED",
  "and-list": "x && touch PWNED",
  pipe: "x | touch PWNED",
  newline: "x\ntouch PWNED",
  "single quotes": "'; touch PWNED; '",
  "double quotes": '"; touch PWNED; "',
  "parameter expansion": "${X:-$(touch PWNED)}$HOME",
  arithmetic: "a[$(touch PWNED)]",
  glob: "*",
  "word splitting": "  two  words  ",
  option: "--output=PWNED",
};

/** Command forms that print the value exactly (the array forms run no shell). */
const FORMS: Record<string, { command: string | string[]; print: (value: string) => string }> = {
  "a bare word": { command: "printf '%s' {{text}}", print: (value) => value },
  "a pipeline": { command: "printf '%s' {{text}} | cat", print: (value) => value },
  "a command substitution": {
    command: "out=$(printf '%s' {{text}}); printf '%s' \"$out\"",
    print: (value) => value,
  },
  "double-quoted command substitution": {
    command: "printf '[%s]' \"$(printf '%s' {{text}})\"",
    print: (value) => `[${value}]`,
  },
  "an assignment": { command: "v={{text}}; printf '%s' \"$v\"", print: (value) => value },
  "a condition": {
    command: "if [ -n {{text}} ]; then printf '%s' {{text}}; fi",
    print: (value) => value,
  },
  "the array form": { command: ["printf", "%s", "{{text}}"], print: (value) => value },
  "the array form, inside an argument": {
    command: ["printf", "[%s]", "<{{text}}>"],
    print: (value) => `[<${value}>]`,
  },
};

describe("no value is ever parsed as shell syntax", () => {
  const cwd = mkdtempSync(join(tmpdir(), "cxc-tool-"));
  writeFileSync(join(cwd, "a-file"), "");
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const here = { ...context, cwd };

  for (const [formName, form] of Object.entries(FORMS)) {
    for (const [payloadName, payload] of Object.entries(PAYLOADS)) {
      it(`${payloadName} in ${formName}`, async () => {
        const tool = createLocalCommandTool("t", { command: form.command });
        const outcome = await callTool(tool, { text: payload }, here);
        expect(outcome).toEqual({ isError: false, content: form.print(payload) });
        expect(readdirSync(cwd)).toEqual(["a-file"]);
      });
    }
  }

  it("a placeholder inside quotes is refused before anything runs", () => {
    for (const command of ["echo '{{text}}'", 'echo "{{text}}"', "echo `echo {{text}}`"]) {
      expect(parseLocalCommandConfig("quoted", { command })).toMatchObject({
        problem: expect.stringMatching(
          /^conversation\.tools\.quoted\.command: the placeholder \{\{text\}\} is inside/,
        ),
        hint: expect.stringContaining("write {{text}} bare"),
      });
      expect(() => createLocalCommandTool("quoted", { command })).toThrow("is inside");
    }
  });

  it("positional placeholders refuse values that look like options; `--` makes them operands", async () => {
    const positional = createLocalCommandTool("sort", {
      command: ["sort", "{{text}}"],
      positional: ["text"],
    });
    expect(await callTool(positional, { text: "--output=PWNED" }, here)).toEqual({
      isError: true,
      content:
        "Invalid arguments for sort: /text must not start with '-' (it is passed to the command as a positional argument, not an option)",
    });
    const separated = createLocalCommandTool("sort", { command: ["sort", "--", "{{text}}"] });
    const outcome = await callTool(separated, { text: "--output=PWNED" }, here);
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain("--output=PWNED");
    expect(readdirSync(cwd)).toEqual(["a-file"]);
    const all = createLocalCommandTool("echo", { command: "echo {{a}} {{b}}", positional: true });
    expect((await callTool(all, { a: "x", b: "-n" }, here)).content).toContain("/b must not start with '-'");
    expect(parseLocalCommandConfig("t", { command: "echo {{a}}", positional: ["b"] })).toMatchObject({
      problem: "conversation.tools.t.positional names 'b', which is not a placeholder of the command",
      hint: "its placeholders: a",
    });
  });

  it("refuses a value holding a NUL character as a tool error", async () => {
    const tool = createLocalCommandTool("t", { command: ["printf", "%s", "{{text}}"] });
    expect(await callTool(tool, { text: "a\u0000b" }, here)).toEqual({
      isError: true,
      content: "Invalid arguments for t: /text must not contain a NUL character",
    });
  });
});

describe("the environment of a command", () => {
  const parent = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/home/someone",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    ANTHROPIC_API_KEY: "sk-ant-secret",
    OPENAI_API_KEY: "sk-openai-secret",
    MY_PROVIDER_KEY: "sk-custom-secret",
    UNRELATED: "not passed",
    FOO: "passed because listed",
  };

  it("is minimal: the base variables, LC_*, what `env` lists, and the CXC_ tool variables", async () => {
    const tool = createLocalCommandTool("env", { command: ["env"], env: ["FOO"] }, { env: parent });
    const outcome = await callTool(tool, { x: 1 }, context);
    const names = outcome.content
      .trim()
      .split("\n")
      .map((line) => line.slice(0, line.indexOf("=")))
      .sort();
    expect(names).toEqual([
      "CXC_CONVERSATION_ID",
      "CXC_TOOL_ARGUMENTS",
      "CXC_TOOL_NAME",
      "FOO",
      "HOME",
      "LANG",
      "LC_ALL",
      "PATH",
    ]);
    expect(outcome.content).not.toContain("secret");
    const shell = createLocalCommandTool("env", { command: "env" }, { env: parent });
    expect((await callTool(shell, {}, context)).content).not.toContain("secret");
  });

  it("refuses a tool that lists a provider key", () => {
    expect(parseLocalCommandConfig("t", { command: "env", env: ["ANTHROPIC_API_KEY"] })).toMatchObject({
      problem:
        "conversation.tools.t.env names ANTHROPIC_API_KEY, a provider key; cxc never passes provider keys to tools",
    });
    expect(
      parseLocalCommandConfig("t", { command: "env", env: ["MY_PROVIDER_KEY"] }, ["MY_PROVIDER_KEY"]),
    ).toMatchObject({ problem: expect.stringContaining("names MY_PROVIDER_KEY, a provider key") });
    expect(parseLocalCommandConfig("t", { command: "env", env: "FOO" })).toMatchObject({
      problem: "conversation.tools.t.env must be a list of environment variable names",
    });
  });

  it('adds the variables `conversation.tools."*".env` lists to every command, and checks them alike', async () => {
    const configured = {
      "*": { env: ["FOO"] },
      both: { command: ["env"], env: ["UNRELATED"] },
      shared: { command: ["env"] },
    };
    const selection = selectTools({ registry: new ToolRegistry(), configured, env: parent });
    const variables = async (name: string): Promise<string[]> => {
      const tool = selection.tools.find((entry) => entry.tool.name === name)!.tool;
      const { content } = await callTool(tool, {}, context);
      return content
        .trim()
        .split("\n")
        .map((line) => line.slice(0, line.indexOf("=")))
        .filter((variable) => !variable.startsWith("CXC_") && variable !== "HOME" && variable !== "PATH")
        .sort();
    };
    expect(await variables("shared")).toEqual(["FOO", "LANG", "LC_ALL"]);
    expect(await variables("both")).toEqual(["FOO", "LANG", "LC_ALL", "UNRELATED"]);
    const refused = (star: ConfigTable) =>
      caughtCxcError(() =>
        selectTools({ registry: new ToolRegistry(), configured: { "*": star, t: { command: "env" } } }),
      );
    expect(refused({ env: ["OPENAI_API_KEY"] })).toMatchObject({
      code: "invalid-config",
      message:
        'conversation.tools."*".env names OPENAI_API_KEY, a provider key; cxc never passes provider keys to tools',
    });
    expect(refused({ env: "FOO" }).message).toBe(
      'conversation.tools."*".env must be a list of environment variable names',
    );
  });
});
