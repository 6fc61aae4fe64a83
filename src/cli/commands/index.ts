/**
 * The command registry: every command's place in the tree, its summary and the term its group's
 * help lists it by, and the one loader of its module (`define`: its flags, its help and its
 * handler, with everything the handler imports). A command line loads the modules of the command
 * it runs (`loadCommands`); the other commands stay entries the help lists, so a command reads
 * only its own code. `help` and `completion` load them all.
 *
 * Every other dynamic `import()` in cxc loads an island (tsup.config.ts), or a part of the store
 * behind its port (src/store/index.ts); docs/architecture.md lists them.
 */
import type { Command } from "commander";
import { CONVERSATION_GROUP_DESCRIPTION, listAs, type RegisterCommands } from "../program.js";

/** A command module: it defines its command on the entry the registry made for it. */
interface CommandModule {
  define(entry: Command): void;
}

/** One command of the tree. */
export interface CommandEntry {
  /** `["q"]`, or a group and the command in it. */
  readonly path: readonly string[];
  readonly aliases?: readonly string[];
  /** Its description, as its module sets it. */
  readonly summary: string;
  /** How its group's help lists it (commander's term: name, alias, `[options]`, arguments). */
  readonly term: string;
  readonly load: () => Promise<CommandModule>;
}

/** The command groups. */
const GROUPS: Readonly<
  Record<string, { readonly aliases?: readonly string[]; readonly description: string }>
> = {
  conversation: { aliases: ["c"], description: CONVERSATION_GROUP_DESCRIPTION },
  config: { description: "inspect the configuration" },
  hooks: { description: "install cxc's hooks into Claude Code or Codex" },
};

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ["init"],
    summary: "create a workspace (.cxc/) in DIR (default: the current directory)",
    term: "init [DIR]",
    load: () => import("./init.js"),
  },
  {
    path: ["conversation", "new"],
    summary: "start a new, empty conversation and make it active",
    term: "new [options]",
    load: () => import("./conversation/new.js"),
  },
  {
    path: ["conversation", "ls"],
    aliases: ["list"],
    summary: "list conversations (pinned first, then newest)",
    term: "ls|list [options]",
    load: () => import("./conversation/ls.js"),
  },
  {
    path: ["conversation", "show"],
    summary: "show a conversation's details and compactions (default: the active one)",
    term: "show [ID]",
    load: () => import("./conversation/show.js"),
  },
  {
    path: ["conversation", "use"],
    summary: "make a conversation the active one (at a terminal, without an id: pick from a list)",
    term: "use [options] [ID]",
    load: () => import("./conversation/use.js"),
  },
  {
    path: ["conversation", "print"],
    summary: "print a conversation's transcript (default: the active one)",
    term: "print [options] [ID]",
    load: () => import("./conversation/print.js"),
  },
  {
    path: ["conversation", "fork"],
    summary: "copy a conversation (or its first/last N turns) into a new active one",
    term: "fork [options] [ID]",
    load: () => import("./conversation/fork.js"),
  },
  {
    path: ["conversation", "archive"],
    summary: "move a conversation to the archive (default: the active one)",
    term: "archive [ID]",
    load: () => import("./conversation/archive.js"),
  },
  {
    path: ["conversation", "unarchive"],
    summary: "bring an archived conversation back",
    term: "unarchive <ID>",
    load: () => import("./conversation/unarchive.js"),
  },
  {
    path: ["conversation", "rm"],
    aliases: ["remove"],
    summary: "delete conversations permanently",
    term: "rm|remove [options] <ID...>",
    load: () => import("./conversation/rm.js"),
  },
  {
    path: ["conversation", "edit"],
    summary: "change a conversation's title or pin it (default: the active one)",
    term: "edit [options] [ID]",
    load: () => import("./conversation/edit.js"),
  },
  {
    path: ["conversation", "grep"],
    summary: "search messages and tool output across conversations (literal text)",
    term: "grep [options] <PATTERN>",
    load: () => import("./conversation/grep.js"),
  },
  {
    path: ["conversation", "import"],
    summary:
      "import conversations from jp, OpenAI or Anthropic messages, a cxc export, or Claude Code, pi, Codex, Gemini CLI and opencode sessions",
    term: "import [options] <PATH>",
    load: () => import("./conversation/import.js"),
  },
  {
    path: ["conversation", "export"],
    summary:
      "export a conversation as a jp directory, a request body, a cxc document, or a session of Claude Code, pi, Codex, Gemini CLI or opencode",
    term: "export [options] [ID]",
    load: () => import("./conversation/export.js"),
  },
  {
    path: ["conversation", "compact"],
    summary: "compact a conversation's history without deleting anything (default: the active one)",
    term: "compact [options] [ID...]",
    load: () => import("./conversation/compact.js"),
  },
  {
    path: ["conversation", "stats"],
    summary: "tokens per kind and per turn, raw and as the model sees it (default: the active one)",
    term: "stats [ID]",
    load: () => import("./conversation/stats.js"),
  },
  {
    path: ["conversation", "keep"],
    summary: "keep a turn or a cycle verbatim through every compaction (default: the active conversation)",
    term: "keep [options] <POSITION...>",
    load: () => import("./conversation/keep.js"),
  },
  {
    path: ["conversation", "unkeep"],
    summary: "stop keeping a turn or a cycle verbatim (default: the active conversation)",
    term: "unkeep [options] <POSITION...>",
    load: () => import("./conversation/unkeep.js"),
  },
  {
    path: ["conversation", "forget"],
    summary:
      "keep a turn, a tool call or a pattern out of recall: the model can never read it back (default: the active conversation)",
    term: "forget [options] [WORDS...]",
    load: () => import("./conversation/forget.js"),
  },
  {
    path: ["config", "show"],
    summary: "print the effective configuration and where each value came from",
    term: "show",
    load: () => import("./config/show.js"),
  },
  {
    path: ["hooks", "install"],
    summary: "add cxc's hooks to an agent's settings (advice, and the restore after it compacts)",
    term: "install [options]",
    load: () => import("./hooks/install.js"),
  },
  {
    path: ["hooks", "uninstall"],
    summary: "remove cxc's hooks from an agent's settings",
    term: "uninstall [options]",
    load: () => import("./hooks/uninstall.js"),
  },
  {
    path: ["hooks", "status"],
    summary: "show where cxc's hooks are installed and what their log says",
    term: "status [options]",
    load: () => import("./hooks/status.js"),
  },
  {
    path: ["hook"],
    summary:
      "run as an agent's hook: reads the agent's hook input on stdin (installed by `cxc hooks install`)",
    term: "hook <agent>",
    load: () => import("./hooks/run.js"),
  },
  {
    path: ["mcp"],
    summary:
      "an MCP server on stdio offering `recall` over the Claude Code or Codex session that started it (registered by `cxc hooks install`)",
    term: "mcp [options]",
    load: () => import("./mcp.js"),
  },
  {
    path: ["completion"],
    summary: 'print a shell completion script: eval "$(cxc completion bash)" (or zsh, fish)',
    term: "completion [options] [SHELL]",
    load: () => import("./completion.js"),
  },
  {
    path: ["query"],
    aliases: ["q"],
    summary: "send a message to the active (or given) conversation and stream the answer",
    term: "query|q [options] [MESSAGE...]",
    load: () => import("./query.js"),
  },
];

function names(
  entry: { readonly path: readonly string[]; readonly aliases?: readonly string[] },
  depth: number,
) {
  return [entry.path[depth]!, ...(entry.path.length === depth + 1 ? (entry.aliases ?? []) : [])];
}

/** The options of the program itself that take a value (`-c a=1`, `--format json`). */
const GLOBAL_WITH_VALUE = new Set(["-c", "--cfg", "--format"]);
/** The options of the program itself that take no value, or an attached one (`--cfg=a=1`). */
function isGlobalFlag(argument: string): boolean {
  return (
    argument === "--no-color" ||
    argument === "-h" ||
    argument === "--help" ||
    argument === "-V" ||
    argument === "--version" ||
    argument.startsWith("--cfg=") ||
    argument.startsWith("--format=")
  );
}

/**
 * The commands a command line runs, as entries of `COMMANDS`: its words (the program's own options
 * skipped, with their values) name a command, or a group and its command. `help` among those
 * words, and `completion` printing a script, need them all (their text lists every option); so
 * does a command line whose command comes after an option cxc cannot place, which commander then
 * reads with every command defined. Words naming no command load none: commander says so.
 */
export function commandsOf(argv: readonly string[]): readonly CommandEntry[] {
  const words: string[] = [];
  let matched: readonly CommandEntry[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (GLOBAL_WITH_VALUE.has(argument)) index += 1;
    else if (isGlobalFlag(argument)) continue;
    else if (argument === "--") break;
    else if (argument.startsWith("-")) {
      // The command's own option, or one before the command that only commander can place.
      if (matched.length > 0) break;
      return COMMANDS;
    } else {
      words.push(argument);
      if (argument === "help") return COMMANDS;
      matched = entriesNamed(words);
      if (matched.length > 0 || !isGroup(words[0]!) || words.length === 2) break;
    }
  }
  if (matched.length === 1 && matched[0]!.path[0] === "completion") {
    // At each Tab the script runs `completion --ids`, which needs no other command.
    return argv.includes("--ids") ? matched : COMMANDS;
  }
  return matched;
}

function isGroupAlias(word: string): boolean {
  return Object.values(GROUPS).some((group) => group.aliases?.includes(word) === true);
}

function isGroup(word: string): boolean {
  return GROUPS[word] !== undefined || isGroupAlias(word);
}

function entriesNamed(words: readonly string[]): readonly CommandEntry[] {
  return COMMANDS.filter(
    (entry) =>
      entry.path.length === words.length &&
      entry.path.every((_, depth) => names(groupOrEntry(entry, depth), depth).includes(words[depth]!)),
  );
}

function groupOrEntry(entry: CommandEntry, depth: number) {
  if (depth === entry.path.length - 1) return entry;
  const group = GROUPS[entry.path[depth]!]!;
  return {
    path: entry.path.slice(0, depth + 1),
    ...(group.aliases === undefined ? {} : { aliases: group.aliases }),
  };
}

/**
 * The registration of the program for `argv`: the groups, every command as an entry, and the
 * modules of the commands the command line runs, loaded first.
 */
export async function loadCommands(argv: readonly string[]): Promise<RegisterCommands> {
  const wanted = commandsOf(argv);
  const modules = new Map<CommandEntry, CommandModule>(
    await Promise.all(wanted.map(async (entry) => [entry, await entry.load()] as const)),
  );
  return (program) => registerCommands(program, modules);
}

/** Registers every command: defined by its module when loaded, else an entry the help lists. */
export function registerCommands(program: Command, modules: ReadonlyMap<CommandEntry, CommandModule>): void {
  const groups = new Map<string, Command>();
  for (const entry of COMMANDS) {
    let parent = program;
    if (entry.path.length === 2) {
      const name = entry.path[0]!;
      let group = groups.get(name);
      if (group === undefined) {
        const { aliases, description } = GROUPS[name]!;
        group = program
          .command(name)
          .aliases([...(aliases ?? [])])
          .description(description);
        groups.set(name, group);
      }
      parent = group;
    }
    const command = parent
      .command(entry.path.at(-1)!)
      .aliases([...(entry.aliases ?? [])])
      .description(entry.summary);
    const module = modules.get(entry);
    // An entry whose module is not loaded is listed by the help as its module would list it.
    if (module === undefined) listAs(command, entry.term);
    else module.define(command);
  }
}
