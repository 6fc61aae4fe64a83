/**
 * The commander program and the one place that turns errors into text and an exit code: with
 * `--format json`, one JSON document on stdout (`{"error": {"code", "message", "hint"}}`);
 * otherwise `cxc: error: …` and `hint: …` lines on stderr. Two entries build the program:
 * `main.ts` with every command, and `main-list.ts` with `conversation ls` alone (bin/cxc.cjs runs
 * that smaller bundle for a listing; see docs/benchmarks.md).
 */
import { Command, CommanderError, Help, Option } from "commander";
import { sanitizeLine, sanitizeTerminalText, stringifyJson } from "../core/present/sanitize.js";
import { CxcError, ExitCode, errorMessage } from "../errors.js";
import { implicitTarget, prepareForAction } from "./context.js";
import { VERSION } from "./version.js";
import { userConfigPath } from "./config.js";

export { VERSION };

/** The description of the `conversation` command group (shared by both entries). */
export const CONVERSATION_GROUP_DESCRIPTION =
  "manage conversations: list, show, print, fork, compact, import, export";

/** Registers commands on the program. */
export type RegisterCommands = (program: Command) => void;

/** The terms the help lists commands by that are still registry entries (commands/index.ts). */
const listedTerms = new WeakMap<Command, string>();

/** Lists `command` in its group's help as `term` (a registry entry whose module is not loaded). */
export function listAs(command: Command, term: string): void {
  listedTerms.set(command, term);
}

/**
 * What `cxc` alone prints (stdout, exit 0): how to start, rather than the whole help as an error.
 */
const getStarted = (
  configFile: string,
): string => `cxc is a conversation manager for LLM conversations, built around non-destructive compaction.

Start here:
  npm run demo                            (in the cxc checkout) the main job on a sample, offline
  cxc conversation import PATH            a jp workspace, a Claude Code, pi, Codex, Gemini CLI or opencode
                                          session, or a messages array
  cxc conversation compact --dry-run      what compacting the active conversation would do
  cxc q "a question"                      ask a model about the active conversation

Choosing a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (cxc picks a default
model for the key), or name one: cxc q -m anthropic/claude-sonnet-4-6 "…", or once for all commands:
  cxc -c assistant.model.id=openai/gpt-5-mini …   (or assistant.model.id in ${configFile})

cxc --help lists every command; cxc conversation --help, cxc q --help and so on say more.
`;

/** The hint after a usage error commander reports. */
const USAGE_HINT = "run with --help for usage";

/**
 * Whether the command line asks for JSON output (`--format json`, `--format=json`; the last one
 * counts, as in commander). Read before parsing, so that even a usage error is reported as JSON.
 */
export function wantsJson(argv: readonly string[]): boolean {
  let format: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === "--") break;
    if (argument === "--format") format = argv[++index];
    else if (argument.startsWith("--format=")) format = argument.slice("--format=".length);
  }
  return format === "json";
}

export function buildProgram(registerCommands: RegisterCommands, options: { json?: boolean } = {}): Command {
  const program = new Command("cxc")
    .description("A conversation manager for LLM conversations, built around non-destructive compaction.")
    .version(VERSION, "-V, --version", "print the version and exit")
    .addOption(
      new Option("-c, --cfg <FILE|KEY=VALUE>", "load a TOML file or set one key (repeatable)")
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
        .default([] as string[], "none"),
    )
    .addOption(
      new Option(
        "--format <FORMAT>",
        "output format: text or json (print also takes anthropic|openai|responses|gemini)",
      ).default("text"),
    )
    .option("--no-color", "disable colours (also NO_COLOR)")
    .configureHelp({
      optionDescription: describeOption,
      subcommandTerm: (command) => listedTerms.get(command) ?? commanderHelp.subcommandTerm(command),
    })
    .showHelpAfterError(options.json ? false : `hint: ${USAGE_HINT}`)
    .enablePositionalOptions(false)
    .exitOverride();
  program.configureOutput({
    writeErr: (text) => process.stderr.write(text),
    // Commander quotes the command line back (an unknown option, a bad value): sanitize it, and
    // never echo what was glued to an unknown option (`--api-key=sk-…`): it may be a secret. With
    // --format json, reportError prints the error as JSON instead.
    outputError: (text, write) => {
      if (options.json) return;
      const { message, hint } = splitCommanderMessage(text);
      write(`cxc: error: ${message}\n${hint === undefined ? "" : `hint: ${hint}\n`}`);
    },
  });
  registerCommands(program);
  program.hook("preAction", async (_program, actionCommand) => prepareForAction(actionCommand));
  return program;
}

const commanderHelp = new Help();

/**
 * An option's line in `--help`, as commander writes it, without the parts that say nothing: the
 * empty preset of an option whose bare form means "the configured ones" (`-k`) and the default of
 * `-c`, which is nothing.
 */
function describeOption(option: Option): string {
  return commanderHelp.optionDescription(option).replace(/ \(([^()]*)\)$/, (_whole, inner: string) => {
    const kept = inner.split(", ").filter((part) => part !== 'preset: ""' && part !== "default: none");
    return kept.length === 0 ? "" : ` (${kept.join(", ")})`;
  });
}

/** `unknown option '--name=VALUE'` → `'--name=…'`, and `'-xVALUE'` → `'-x…'`. */
export function withoutUnknownOptionValue(text: string): string {
  return text
    .replace(/unknown option '(--[^=']+)=[^']*'/g, "unknown option '$1=…'")
    .replace(/unknown option '(-[^-'])[^']+'/g, "unknown option '$1…'");
}

/** Runs cxc with the given arguments; sets `process.exitCode` and never throws. */
export async function runProgram(argv: readonly string[], registerCommands: RegisterCommands): Promise<void> {
  // A reader that goes away (`cxc … | head`) is not an error: stop quietly.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (argv.length === 0) {
    // The user's configuration file where XDG_CONFIG_HOME puts it.
    process.stdout.write(getStarted(userConfigPath(process.env)));
    return;
  }
  const json = wantsJson(argv);
  try {
    await buildProgram(registerCommands, { json }).parseAsync([...argv], { from: "user" });
  } catch (error) {
    process.exitCode = reportError(error, { json });
  }
}

/** Commander's `error: …` text (maybe followed by `(Did you mean …?)`) as a message and a hint. */
function splitCommanderMessage(text: string): { message: string; hint: string | undefined } {
  const [first = "", ...rest] = sanitizeTerminalText(withoutUnknownOptionValue(text)).trim().split("\n");
  const suggestion = rest
    .map((line) => line.trim().replace(/^\((.*)\)$/, "$1"))
    .filter((line) => line !== "")
    .join(" ");
  return {
    message: sanitizeLine(first.replace(/^error: /, "")),
    hint: suggestion === "" ? undefined : suggestion.replace(/^Did you/, "did you"),
  };
}

/** What an error report says; undefined for commander's help and version exits. */
interface ErrorReport {
  readonly code: string;
  readonly message: string;
  readonly hint: string | undefined;
  readonly exitCode: number;
}

function describeError(error: unknown): ErrorReport | undefined {
  if (error instanceof CommanderError) {
    // Help and version exit with 0.
    if (error.exitCode === 0) return undefined;
    if (error.code === "commander.help") {
      // A command group run without a subcommand: commander printed the group's help to stderr.
      const hint = "pick one of the commands listed above, or add --help";
      return { code: "usage", message: "a subcommand is needed", hint, exitCode: ExitCode.usage };
    }
    const { message, hint } = splitCommanderMessage(error.message);
    return { code: "usage", message, hint: hint ?? USAGE_HINT, exitCode: ExitCode.usage };
  }
  if (CxcError.isInstance(error)) {
    return {
      code: error.code,
      message: sanitizeLine(namingTheConversation(error)),
      hint: error.hint === undefined ? undefined : sanitizeLine(error.hint),
      exitCode: error.exitCode,
    };
  }
  return {
    code: "internal",
    message: sanitizeLine(errorMessage(error)),
    hint: process.env.CXC_DEBUG ? undefined : "run again with CXC_DEBUG=1 for a stack trace, and report it",
    exitCode: ExitCode.failure,
  };
}

/**
 * Errors about a conversation's own turns, log or compactions (not about flags, settings or a
 * provider): these name the conversation when its id was not typed.
 */
const CONVERSATION_ERRORS: ReadonlySet<string> = new Set([
  "invalid-bound",
  "invalid-range",
  "corrupt-log",
  "unsupported-version",
  "lock-timeout",
  "nothing-to-compact",
  "compaction-conflict",
  "review-open",
  "review-invalid",
]);

/**
 * The message of an error about a conversation that a command reached without its id being typed
 * (the active one, a keyword, a picker): `conversation 01jt…: MESSAGE`, so a user who expected
 * another conversation sees which one it was. A message that names it already stays as it is.
 */
function namingTheConversation(error: CxcError): string {
  const id = implicitTarget();
  if (id === undefined || !CONVERSATION_ERRORS.has(error.code) || error.message.includes(id))
    return error.message;
  return `conversation ${id}: ${error.message}`;
}

/**
 * Reports an error and returns the exit code to use: one clear line and a hint on stderr, or with
 * `json`, `{"error": {"code", "message", "hint"}}` on one line of stdout (the document a script
 * reads in place of the result; one line, so it also ends the NDJSON of `q`). Messages carry text from outside (a provider's error body, a file or directory
 * name, a value typed on the command line), so every line is sanitized and folded onto one line.
 * Exit codes are the same either way.
 */
export function reportError(error: unknown, options: { json?: boolean } = {}): number {
  const report = describeError(error);
  if (report === undefined) return ExitCode.ok;
  if (options.json) {
    const { code, message, hint } = report;
    process.stdout.write(`${stringifyJson({ error: { code, message, hint: hint ?? null } })}\n`);
  } else if (!(error instanceof CommanderError)) {
    // Commander already printed its usage errors (outputError above).
    // An interrupt is something the user did, not a failure: said as a notice.
    const label =
      report.code === "interrupted" ? "" : report.code === "internal" ? "internal error: " : "error: ";
    process.stderr.write(`cxc: ${label}${report.message}\n`);
    if (report.hint) process.stderr.write(`hint: ${report.hint}\n`);
  }
  if (process.env.CXC_DEBUG && error instanceof Error && error.stack && !(error instanceof CommanderError))
    process.stderr.write(`${sanitizeTerminalText(error.stack)}\n`);
  return report.exitCode;
}
