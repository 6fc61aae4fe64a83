/**
 * `cxc completion bash|zsh|fish`: the scripts really complete. bash: the script sourced and its
 * function called with COMP_WORDS set, as bash does at Tab; fish: its own `complete -C`; zsh: an
 * interactive zsh in a real terminal (tmux), Tab pressed. Commands, aliases, options and their
 * values come from the command tree; conversation ids from a temporary store.
 *
 * The three shells are needed (`.ci/run` installs them): without one these tests fail saying so.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { cxcShimDirectory, makeTempHome, type TempHome } from "../helpers/cli.js";
import { startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
let environment: Record<string, string>;
let scripts: Record<"bash" | "zsh" | "fish", string>;

function requireShell(shell: string): void {
  try {
    execFileSync(shell, ["-c", "exit 0"], { stdio: "ignore" });
  } catch {
    throw new Error(`the completion tests need ${shell} on PATH (Debian: apt-get install ${shell})`);
  }
}

beforeAll(async () => {
  home = makeTempHome();
  const build = createEventBuilder();
  await seedConversation(home, { id: "01kk01te64eyp", title: "One", events: build.turns(1) });
  await seedConversation(home, { id: "01kk00nq641xc", title: "Two", events: build.turns(1) });
  await seedConversation(home, { id: "01mzz0000000a", title: "Three", events: build.turns(1) });
  await seedConversation(home, { id: "01arch0000000", title: "Old", archived: true });
  const shims = cxcShimDirectory(join(home.home, ".."));
  environment = { ...home.env, PATH: `${shims}:${home.env.PATH}` };
  scripts = { bash: "", zsh: "", fish: "" };
  for (const shell of ["bash", "zsh", "fish"] as const) {
    const result = await home.run(["completion", shell]);
    expect(result.exitCode, result.stderr).toBe(0);
    scripts[shell] = join(home.home, "..", `completion.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
});
afterAll(() => home.cleanup());

/** What bash completes for the words typed (the last one is being completed). */
function bashCompletes(...words: string[]): string[] {
  requireShell("bash");
  const program = [
    `source ${JSON.stringify(scripts.bash)}`,
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    "_cxc",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const output = execFileSync("bash", ["--norc", "-c", program], { env: environment, encoding: "utf8" });
  return output.split("\n").filter(Boolean).sort();
}

/** What fish completes for the command line `line`. */
function fishCompletes(line: string): string[] {
  requireShell("fish");
  const program = `source ${JSON.stringify(scripts.fish)}; complete -C ${JSON.stringify(line)}`;
  const output = execFileSync("fish", ["--no-config", "-c", program], { env: environment, encoding: "utf8" });
  return output
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split("\t")[0]!)
    .sort();
}

describe("bash", () => {
  it("completes commands, aliases and subcommands from the command tree", () => {
    expect(bashCompletes("cxc", "")).toEqual(
      ["c", "completion", "config", "conversation", "hook", "hooks", "init", "mcp", "q", "query"].sort(),
    );
    expect(bashCompletes("cxc", "c", "com")).toEqual(["compact"]);
    expect(bashCompletes("cxc", "conversation", "s")).toEqual(["show", "stats"]);
    // An option and its value before the subcommand are skipped over.
    expect(bashCompletes("cxc", "-c", "x=1", "--format", "json", "c", "pri")).toEqual(["print"]);
  });

  it("completes a command's options with the global ones, and option values", () => {
    expect(bashCompletes("cxc", "c", "compact", "--keep")).toEqual(["--keep-first", "--keep-last"]);
    expect(bashCompletes("cxc", "c", "compact", "--for")).toEqual(["--format"]);
    expect(bashCompletes("cxc", "c", "import", "--from", "c")).toEqual(["claude-code", "codex", "cxc"]);
    expect(bashCompletes("cxc", "--format", "")).toEqual(["json", "text"]);
    expect(bashCompletes("cxc", "c", "print", "--format", "")).toEqual([
      "anthropic",
      "gemini",
      "json",
      "openai",
      "responses",
      "text",
    ]);
    expect(bashCompletes("cxc", "completion", "")).toEqual([]);
  });

  it("completes conversation ids from the store, and jp's keywords", () => {
    expect(bashCompletes("cxc", "c", "show", "01kk")).toEqual(["01kk00nq641xc", "01kk01te64eyp"]);
    expect(bashCompletes("cxc", "c", "show", "")).toEqual(
      ["01kk00nq641xc", "01kk01te64eyp", "01mzz0000000a", "active", "recent"].sort(),
    );
    expect(bashCompletes("cxc", "c", "compact", "01kk01te64eyp", "01m")).toEqual(["01mzz0000000a"]);
    expect(bashCompletes("cxc", "q", "--id", "01m")).toEqual(["01mzz0000000a"]);
    // unarchive: the archived ones.
    expect(bashCompletes("cxc", "c", "unarchive", "")).toEqual(["01arch0000000"]);
  });

  it("completes paths where a command takes one", () => {
    const directory = join(home.home, "..", "sessions-to-import");
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "a.jsonl"), "");
    expect(bashCompletes("cxc", "c", "import", `${directory}/a`)).toEqual([`${directory}/a.jsonl`]);
  });
});

describe("fish", () => {
  it("completes commands, options, values, ids and paths", () => {
    expect(fishCompletes("cxc c com")).toEqual(["compact"]);
    expect(fishCompletes("cxc c compact --keep")).toEqual(["--keep-first", "--keep-last"]);
    expect(fishCompletes("cxc c print --format r")).toEqual(["responses"]);
    expect(fishCompletes("cxc c show 01kk")).toEqual(["01kk00nq641xc", "01kk01te64eyp"]);
    expect(fishCompletes("cxc c unarchive ")).toEqual(["01arch0000000"]);
  });
});

describe("zsh", () => {
  it("completes at Tab in an interactive zsh", async () => {
    requireShell("zsh");
    const dotdir = join(home.home, "..", "zsh");
    mkdirSync(dotdir, { recursive: true });
    writeFileSync(
      join(dotdir, ".zshrc"),
      `autoload -U compinit && compinit -u\nsource ${JSON.stringify(scripts.zsh)}\nPS1='> '\n`,
    );
    const pty = startInTmux(["zsh", "-i"], {
      env: { ...environment, ZDOTDIR: dotdir, HOME: dotdir },
      cwd: dotdir,
    });
    try {
      await pty.waitFor(/^>/m);
      pty.send("cxc c com", { literal: true });
      pty.send("Tab");
      await pty.waitFor(/^> cxc c compact ?$/m);
      pty.send("C-u");
      pty.send("cxc c show 01mz", { literal: true });
      pty.send("Tab");
      await pty.waitFor(/^> cxc c show 01mzz0000000a ?$/m);
    } finally {
      pty.close();
    }
  });
});

describe("cxc completion", () => {
  it("names the shells when none or another is given", async () => {
    const none = await home.run(["completion"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^cxc: error: name the shell: cxc completion bash, zsh or fish\n/);
    const other = await home.run(["completion", "tcsh"]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("bash, zsh, fish");
  });
});
