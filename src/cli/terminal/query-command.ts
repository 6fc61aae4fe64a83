/**
 * The `cxc q` handler body: turns commander's flags into a `QueryRequest`, builds the terminal
 * pieces (display, approval prompt, editor, stdin) and runs the query. Loaded with
 * `commands/query.ts` when a command line runs `q` (the command registry, `commands/index.ts`).
 */
import { text } from "node:stream/consumers";
import { usageError } from "../../errors.js";
import { restoreMessageWords, scanOptionalValueFlags } from "../../query/optional-values.js";
import { type QueryRequest, type QueryUi, runQuery } from "../../query/run-query.js";
import { readQuerySettings } from "../../query/settings.js";
import { loadConfig } from "../config.js";
import type { CliContext } from "../context.js";
import { startProgress } from "../compaction/progress.js";
import { createApprovalPrompter } from "./approval-prompt.js";
import { editText } from "./editor.js";
import { openPromptTerminal } from "./tty.js";
import { JsonTurnDisplay, TextTurnDisplay } from "./turn-display.js";

/** The flags commander hands to the handler. */
export interface QueryFlags {
  readonly new?: boolean;
  readonly id?: string;
  readonly model?: string;
  readonly tool?: { name: string; enable: boolean }[];
  readonly toolUse?: string;
  readonly stream: boolean;
  readonly nonInteractive?: boolean;
  readonly reasoning?: boolean;
  readonly maxCycles?: string;
  /** With `-k`: its summaries are the provider's own (Anthropic's on-demand compaction). */
  readonly native?: boolean;
}

export async function runQueryCommand(
  context: CliContext,
  rawArguments: readonly string[],
  words: readonly string[],
  flags: QueryFlags,
): Promise<void> {
  const format = context.format(["text", "json"]);
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  for (const warning of config.warnings) context.warn(warning);
  const request = buildRequest(rawArguments, words, flags);
  const settings = readQuerySettings(config.values);
  const terminal = openPromptTerminal({ nonInteractive: flags.nonInteractive ?? false });
  // Styles (the dimmed chrome, bold and colours in the answer) follow --no-color and NO_COLOR; the
  // spinner and markdown's layout need only a terminal.
  const colour = context.options.color && !context.env.NO_COLOR;
  const decorate = colour && Boolean(process.stderr.isTTY);
  const markdownWidth =
    format === "text" && process.stdout.isTTY && !context.env.CXC_PLAIN
      ? Math.min((process.stdout.columns || 80) - 1, 100)
      : undefined;
  let display: TextTurnDisplay | undefined;
  const ui: QueryUi = {
    // Read only when no message was given: looking at stdin opens it (a stream), which a turn
    // with its message on the command line never needs.
    get stdinIsTerminal() {
      return context.stdinIsTerminal;
    },
    readStdin: () => text(process.stdin),
    editMessage: () => editText("", { env: context.env, fileName: "QUERY_MESSAGE.md" }),
    createDisplay: (modelId) => {
      if (format === "json") return new JsonTurnDisplay(process.stdout, process.stderr);
      display = new TextTurnDisplay({
        stdout: process.stdout,
        stderr: process.stderr,
        modelId,
        ...(markdownWidth === undefined ? {} : { markdownWidth }),
        spinner: Boolean(process.stderr.isTTY),
        stderrIsTerminal: Boolean(process.stderr.isTTY),
        showReasoning:
          flags.reasoning === true ||
          settings.reasoningDisplay === "show" ||
          (settings.reasoningDisplay === "auto" && Boolean(process.stderr.isTTY)),
        decorate,
        buffered: !flags.stream,
      });
      return display;
    },
    prompter: terminal ? createApprovalPrompter(terminal, { env: context.env }) : undefined,
    ...(format === "json" ? {} : { progress: (label: string) => startProgress(process.stderr, label) }),
    info: (line) => {
      display?.beforeExternalLine();
      context.info(line);
    },
    hint: (line) => {
      display?.beforeExternalLine();
      context.hint(line);
    },
    warn: (line) => {
      display?.beforeExternalLine();
      context.warn(line);
    },
    ...(format === "json"
      ? {}
      : {
          gauge: {
            terminal: Boolean(process.stderr.isTTY),
            print: (line: string) =>
              process.stderr.write(decorate ? `\u001b[2mcxc: ${line}\u001b[22m\n` : `cxc: ${line}\n`),
          },
        }),
  };
  try {
    await runQuery(request, {
      store: context.store,
      config: config.values,
      env: context.env,
      cwd: context.cwd,
      ui,
    });
  } finally {
    terminal?.close();
  }
}

function buildRequest(
  rawArguments: readonly string[],
  words: readonly string[],
  flags: QueryFlags,
): QueryRequest {
  const scanned = scanOptionalValueFlags(rawArguments);
  const message = restoreMessageWords(rawArguments, words, scanned.swallowed);
  if (flags.native === true && scanned.compact.length === 0) {
    throw usageError("--native asks -k for the provider's own summary; add -k with a summary (-k=s:1..6)");
  }
  return {
    message,
    newConversation: flags.new ?? false,
    ...(flags.id === undefined ? {} : { id: flags.id }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    directives: flags.tool ?? [],
    ...(flags.toolUse === undefined ? {} : { forcedTool: flags.toolUse }),
    compact: scanned.compact,
    ...(flags.native === true ? { native: true } : {}),
    ...(scanned.fork === undefined ? {} : { fork: parseFork(scanned.fork) }),
    ...(flags.maxCycles === undefined ? {} : { maxCycles: parsePositive("--max-cycles", flags.maxCycles) }),
  };
}

function parseFork(value: true | string): true | number {
  return value === true ? true : parsePositive("--fork", value);
}

function parsePositive(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw usageError(`${flag} needs a positive whole number, got '${value}'`);
  }
  return Number(value);
}
