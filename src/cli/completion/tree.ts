/**
 * The command tree as shell completion needs it, read from the commander program itself, so a
 * new command or option completes without anyone writing it down twice: each command's canonical
 * path (`conversation compact`), the names that reach it (aliases too), its options, which of
 * them take a value and what values, and what its positional arguments are (conversation ids,
 * files, or nothing to complete).
 */
import type { Argument, Command, Option } from "commander";

/** What the value of an option, or a positional argument, completes to. */
export type ValueKind = "ids" | "archived-ids" | "files" | "none";

/** One option of a command. */
export interface CompletionOption {
  /** `-k`, `--compact`. */
  readonly flags: readonly string[];
  /** Whether the next word is its value (a required `<VALUE>`; an optional `[VALUE]` is not). */
  readonly takesValue: boolean;
  /** Its values, when it has a fixed set (`--format`, `import --from`). */
  readonly choices: readonly string[];
  readonly value: ValueKind;
}

/** One command of the tree. */
export interface CompletionNode {
  /** Canonical names from the root (`["conversation", "compact"]`; the root: `[]`). */
  readonly path: readonly string[];
  /** The words that name it under its parent: its name and aliases. */
  readonly names: readonly string[];
  readonly children: readonly CompletionNode[];
  readonly options: readonly CompletionOption[];
  /** What its positional arguments complete to. */
  readonly positional: ValueKind;
}

/** The tree under `program` (hidden commands and options left out). */
export function completionTree(program: Command): CompletionNode {
  return nodeOf(program, []);
}

/**
 * The global `--format` takes any word and each command checks it (`CliContext.format`): its
 * values are written here, `print`'s two request bodies too.
 */
const FORMATS = ["text", "json"];
const PRINT_FORMATS = [...FORMATS, "anthropic", "openai", "responses", "gemini"];

function formatOption(choices: readonly string[]): CompletionOption {
  return { flags: ["--format"], takesValue: true, choices, value: "none" };
}

/** The node's path as one key: `conversation compact`; the root is ``. */
export function pathKey(node: Pick<CompletionNode, "path">): string {
  return node.path.join(" ");
}

/** Every node of the tree, the root first. */
export function allNodes(root: CompletionNode): CompletionNode[] {
  return [root, ...root.children.flatMap(allNodes)];
}

function nodeOf(command: Command, parentPath: readonly string[]): CompletionNode {
  const path = command.parent === null ? [] : [...parentPath, command.name()];
  return {
    path,
    names: [command.name(), ...command.aliases()],
    children: command.commands
      .filter((child) => !(child as unknown as { _hidden?: boolean })._hidden)
      .map((child) => nodeOf(child, path)),
    options: [
      ...(path.join(" ") === "conversation print" ? [formatOption(PRINT_FORMATS)] : []),
      ...command.options
        .filter((option) => !option.hidden)
        .map((option) => (option.long === "--format" ? formatOption(FORMATS) : optionOf(option))),
    ],
    // `unarchive` names an archived conversation; every other id is a live one.
    positional: command.name() === "unarchive" ? "archived-ids" : positionalOf(command.registeredArguments),
  };
}

function optionOf(option: Option): CompletionOption {
  const flags = [option.short, option.long].filter((flag): flag is string => flag !== undefined);
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? "";
  return {
    flags,
    takesValue: option.required,
    choices: option.argChoices ?? [],
    value: option.long === "--id" ? "ids" : /FILE|PATH|DIR/.test(placeholder) ? "files" : "none",
  };
}

function positionalOf(args: readonly Argument[]): ValueKind {
  const first = args[0]?.name();
  if (first === undefined) return "none";
  if (/^ID/.test(first)) return "ids";
  if (/PATH|DIR|FILE/.test(first)) return "files";
  return "none";
}
