/**
 * The command registry (src/cli/commands/index.ts): each entry lists its command as the command's
 * own module defines it, and a command line loads only the modules of the command it runs.
 */
import { Command, Help } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandsOf } from "../../src/cli/commands/index.js";

describe("the command registry", () => {
  it("lists every command by the summary and the term its module gives it", async () => {
    const help = new Help();
    for (const entry of COMMANDS) {
      const parent = new Command("parent");
      const command = parent.command(entry.path.at(-1)!).aliases([...(entry.aliases ?? [])]);
      (await entry.load()).define(command);
      expect(command.description(), entry.path.join(" ")).toBe(entry.summary);
      expect(help.subcommandTerm(command), entry.path.join(" ")).toBe(entry.term);
    }
  });

  it("loads the command a command line runs, by name or alias, past the global options", () => {
    const paths = (argv: string[]) => commandsOf(argv).map((entry) => entry.path.join(" "));
    expect(paths(["c", "compact", "--dry-run"])).toEqual(["conversation compact"]);
    expect(paths(["--format", "json", "-c", "a=1", "conversation", "list"])).toEqual(["conversation ls"]);
    expect(paths(["q", "hello"])).toEqual(["query"]);
    expect(paths(["conversation", "--help"])).toEqual([]);
    expect(paths(["--version"])).toEqual([]);
    expect(paths(["c", "nope"])).toEqual([]);
    expect(paths(["help", "q"])).toHaveLength(COMMANDS.length);
    expect(paths(["completion", "bash"])).toHaveLength(COMMANDS.length);
    // What the completion script runs at each Tab loads the completion command alone.
    expect(paths(["completion", "--ids", "--archived"])).toEqual(["completion"]);
    // The command's own options and words end the search, `help` among a message included.
    expect(paths(["q", "-m", "help", "help"])).toEqual(["query"]);
    expect(paths(["conversation", "--no-color", "compact", "-k", "1"])).toEqual(["conversation compact"]);
    // An option cxc cannot place before the command: every command, and commander reads it.
    expect(paths(["-cconversation.title=x", "q", "hi"])).toHaveLength(COMMANDS.length);
  });
});
