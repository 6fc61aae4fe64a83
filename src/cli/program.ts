/**
 * The commander program and the one place that turns errors into stderr text and an exit code.
 * Two entries build it: `main.ts` with every command, and `main-list.ts` with `conversation ls`
 * alone (bin/cxc.cjs runs that smaller bundle for a listing; see docs/benchmarks.md).
 */
import { Command, CommanderError, Option } from "commander";
import { sanitizeLine, sanitizeTerminalText } from "../core/sanitize.js";
import { CxcError, ExitCode, errorMessage } from "../errors.js";
import { prepareForAction } from "./context.js";
import { VERSION } from "./version.js";

export { VERSION };

/** The description of the `conversation` command group (shared by both entries). */
export const CONVERSATION_GROUP_DESCRIPTION =
  "manage conversations: list, show, print, fork, compact, import, export";

/** Registers commands on the program. */
export type RegisterCommands = (program: Command) => void;

export function buildProgram(registerCommands: RegisterCommands): Command {
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
        "output format: text or json (print also takes anthropic|openai)",
      ).default("text"),
    )
    .option("--no-color", "disable colours (also NO_COLOR)")
    .showHelpAfterError("(run with --help for usage)")
    .enablePositionalOptions(false)
    .exitOverride();
  program.configureOutput({
    writeErr: (text) => process.stderr.write(text),
    // Commander quotes the command line back (an unknown option, a bad value): sanitize it.
    outputError: (text, write) => write(sanitizeTerminalText(text.replace(/^error: /, "cxc: error: "))),
  });
  registerCommands(program);
  program.hook("preAction", async (_program, actionCommand) => prepareForAction(actionCommand));
  return program;
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
  try {
    await buildProgram(registerCommands).parseAsync([...argv], { from: "user" });
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

/**
 * Prints one clear line (plus a hint) for an error and returns the exit code to use. Messages
 * carry text from outside (a provider's error body, a file or directory name, a value typed on the
 * command line), so every line is sanitized and folded onto one line before it reaches stderr.
 */
export function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version exit with 0; commander already printed its own usage error text.
    if (error.exitCode === 0) return ExitCode.ok;
    return ExitCode.usage;
  }
  if (CxcError.isInstance(error)) {
    // An interrupt is something the user did, not a failure: said as a notice.
    const label = error.code === "interrupted" ? "" : "error: ";
    process.stderr.write(`cxc: ${label}${sanitizeLine(error.message)}\n`);
    if (error.hint) process.stderr.write(`hint: ${sanitizeLine(error.hint)}\n`);
    if (process.env.CXC_DEBUG && error.stack) process.stderr.write(`${sanitizeTerminalText(error.stack)}\n`);
    return error.exitCode;
  }
  process.stderr.write(`cxc: internal error: ${sanitizeLine(errorMessage(error))}\n`);
  if (process.env.CXC_DEBUG && error instanceof Error && error.stack)
    process.stderr.write(`${sanitizeTerminalText(error.stack)}\n`);
  else process.stderr.write("hint: run again with CXC_DEBUG=1 for a stack trace, and report it\n");
  return ExitCode.failure;
}
