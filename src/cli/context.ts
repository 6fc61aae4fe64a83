/**
 * The composition root for command handlers: the store, the output format, and the writers.
 *
 * stdout carries results only; progress, advice, warnings and prompts go to stderr, every message
 * line in one voice: `cxc: …` notices, `cxc: warning: …`, `hint: …` (errors: program.ts). Text that came
 * from outside cxc (model output, tool output, imported data) is sanitized before it is printed.
 */
import type { Command } from "commander";
import { sanitizeLine, sanitizeTerminalText, stringifyJson } from "../core/present/sanitize.js";
import { CxcError } from "../errors.js";
import {
  openFileListing,
  openFileStore,
  resolveStoreLocation,
  type Store,
  type StoreListing,
  type StoreLocation,
} from "../store/index.js";
import { loadConfig } from "./config.js";

/** The store of this process, opened before the first action that uses it. */
let fileStore: Store | undefined;
/** The conversations this process acted on without their ids being typed (src/cli/targets.ts). */
const implicitTargets = new Set<string>();

/** Notes a conversation reached by a keyword, a picker or no argument at all. */
export function noteImplicitTarget(id: string): void {
  implicitTargets.add(id);
}

/** The one conversation reached that way, when there was exactly one: errors name it. */
export function implicitTarget(): string | undefined {
  return implicitTargets.size === 1 ? [...implicitTargets][0] : undefined;
}
const lightweightCommands = new WeakSet<Command>();

/**
 * Marks a command whose handler never touches `context.store` (it uses `context.listing`), so the
 * event-log code and its schema library are not loaded before it runs.
 */
export function markLightweight(command: Command): Command {
  lightweightCommands.add(command);
  return command;
}

/** Opens the store before a command's action runs (a commander `preAction` hook). */
export async function prepareForAction(command: Command): Promise<void> {
  const context = CliContext.from(command);
  if (!lightweightCommands.has(command)) fileStore ??= await openFileStore(context.cwd, context.env);
  // One rule for every command: the configuration files and the -c overlays are read and a
  // broken one is refused (exit 2, naming file, line and column), even by a command that uses no
  // setting, so `ls` never accepts what `q` rejects. Settings are checked where they are used.
  loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
}

export type OutputFormat = "text" | "json";

export interface GlobalOptions {
  readonly cfg: string[];
  readonly format: string;
  readonly color: boolean;
}

export class CliContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly options: GlobalOptions;

  constructor(options: GlobalOptions, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env) {
    this.options = options;
    this.cwd = cwd;
    this.env = env;
  }

  /** Builds the context from any command: global options live on the root program. */
  static from(command: Command): CliContext {
    let root = command;
    while (root.parent) root = root.parent;
    return new CliContext(root.opts() as GlobalOptions);
  }

  get store(): Store {
    if (!fileStore)
      throw new CxcError("internal", "the store was used before it was opened (missing preAction hook?)");
    return fileStore;
  }

  /** Where the store is and why (a workspace, `CXC_HOME`, `XDG_DATA_HOME`, the default). */
  get storeLocation(): StoreLocation {
    return resolveStoreLocation(this.cwd, this.env);
  }

  /** Listing without loading the event-log code; for lightweight commands. */
  get listing(): StoreListing {
    return openFileListing(this.cwd, this.env);
  }

  /** The `--format` value, checked against what this command supports. */
  format<const T extends string = OutputFormat>(
    allowed: readonly T[] = ["text", "json"] as unknown as readonly T[],
  ): T {
    const value = this.options.format;
    if (!(allowed as readonly string[]).includes(value)) {
      throw new CxcError("usage", `--format ${value} is not supported here`, {
        hint: `use one of: ${allowed.join(", ")}`,
      });
    }
    return value as T;
  }

  get json(): boolean {
    return this.options.format === "json";
  }

  get color(): boolean {
    return this.options.color && !this.env.NO_COLOR && Boolean(process.stdout.isTTY);
  }

  get stdinIsTerminal(): boolean {
    return Boolean(process.stdin.isTTY);
  }

  /** All of standard input, as UTF-8 text. */
  async readStdin(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  /** Writes a result line to stdout. */
  out(text: string): void {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Writes untrusted text to stdout, sanitized. */
  outUntrusted(text: string): void {
    this.out(sanitizeTerminalText(text));
  }

  /** Writes one JSON document to stdout (stable keys: callers build plain objects; C1 escaped). */
  outJson(value: unknown): void {
    process.stdout.write(`${stringifyJson(value, 2)}\n`);
  }

  /**
   * A notice on stderr (progress, advice): every line starts `cxc: `. Sanitized: notices often
   * quote names and text from outside.
   */
  info(text: string): void {
    process.stderr.write(prefixLines("cxc: ", text));
  }

  /** Advice on stderr after a notice or a result: every line starts `hint: `. */
  hint(text: string): void {
    process.stderr.write(prefixLines("hint: ", text));
  }

  /** One warning line on stderr: `cxc: warning: …`, sanitized and folded onto one line. */
  warn(text: string): void {
    process.stderr.write(`cxc: warning: ${sanitizeLine(text)}\n`);
  }

  /**
   * A block shown on stderr as it is (sanitized), for text a person reads before answering a
   * prompt (a proposal and its summary); messages use `info`, `hint` and `warn`.
   */
  block(text: string): void {
    const clean = sanitizeTerminalText(text);
    process.stderr.write(clean.endsWith("\n") ? clean : `${clean}\n`);
  }
}

/** `text` sanitized, each of its lines after `prefix`, ending in a newline. */
function prefixLines(prefix: string, text: string): string {
  const lines = sanitizeTerminalText(text).replace(/\n+$/, "").split("\n");
  return `${lines.map((line) => (line === "" ? prefix.trimEnd() : prefix + line)).join("\n")}\n`;
}
