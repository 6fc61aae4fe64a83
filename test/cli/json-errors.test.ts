/**
 * With `--format json`, an error is one JSON document on stdout, `{"error": {code, message,
 * hint}}`, on one line, with nothing for it on stderr and the same exit code as in text. One case
 * per command family (conversation, the listing bundle, compact, query, config, init) and one for
 * a command-line mistake commander reports.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";

let home: TempHome;
afterEach(() => home?.cleanup());

describe("errors as JSON", () => {
  it.each([
    ["conversation", ["c", "show", "nosuch"], "conversation-not-found", 1],
    ["the listing bundle", ["c", "ls", "--limit", "x"], "usage", 2],
    ["compact", ["c", "compact", "-k", "bogus"], "invalid-spec", 2],
    ["print", ["c", "print", "--turn", "0"], "invalid-range", 2],
    ["query", ["q", "hello"], "no-model-configured", 1],
    ["config", ["-c", "no-such-file.toml", "config", "show"], "invalid-config", 2],
    ["init", ["init", "/dev/null/inside-a-file"], "store-unreadable", 1],
    ["a command-line mistake", ["c", "show", "--bogus"], "usage", 2],
    ["an unknown command", ["c", "shw"], "usage", 2],
  ] as const)("%s: %j", async (_family, args, code, exitCode) => {
    home = makeTempHome();
    const text = await home.run(args);
    const json = await home.run(["--format", "json", ...args]);
    expect(text.exitCode).toBe(exitCode);
    expect(json.exitCode).toBe(exitCode);
    expect(text.stderr).toMatch(/^cxc: error: /);
    expect(json.stderr).toBe("");
    expect(json.stdout.trimEnd().split("\n")).toHaveLength(1);
    const document = JSON.parse(json.stdout) as { error: Record<string, unknown> };
    expect(Object.keys(document)).toEqual(["error"]);
    expect(Object.keys(document.error)).toEqual(["code", "message", "hint"]);
    expect(document.error.code).toBe(code);
    // The same words as the text line.
    expect(text.stderr).toContain(`cxc: error: ${document.error.message as string}\n`);
    if (document.error.hint !== null)
      expect(text.stderr).toContain(`hint: ${document.error.hint as string}\n`);
  });

  it("words commander's suggestion as the hint", async () => {
    home = makeTempHome();
    const json = await home.run(["--format=json", "conversation", "shw"]);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: "usage", message: "unknown command 'shw'", hint: "did you mean show?" },
    });
    const text = await home.run(["conversation", "shw"]);
    expect(text.stderr).toBe(
      "cxc: error: unknown command 'shw'\nhint: did you mean show?\nhint: run with --help for usage\n",
    );
  });

  it("says a subcommand is needed when a group runs without one", async () => {
    home = makeTempHome();
    const json = await home.run(["--format", "json", "conversation"]);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "usage", message: "a subcommand is needed" });
  });

  it("keeps text errors when the last --format is text", async () => {
    home = makeTempHome();
    const result = await home.run(["--format", "json", "--format", "text", "c", "show", "nosuch"]);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^cxc: error: no conversation matches 'nosuch'\n/);
  });
});
