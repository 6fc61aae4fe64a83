/**
 * What a turn shows: the answer on stdout, everything else on stderr.
 *
 * - text: the answer, streamed. At a terminal it is markdown rendered as it streams
 *   (markdown-stream.ts); in a pipe it is the plain text, nothing else, so
 *   `cxc q … > answer.md` captures exactly the answer.
 * - reasoning: stderr, under a `[reasoning]` label and followed by a blank line at a terminal
 *   (dimmed too when colour is on), so it is told from the answer without colour; hidden in pipes
 *   unless asked for.
 * - tool calls, notices: stderr. Each call is shown once, before any approval prompt.
 * - stderr that is not a terminal (a log file, a pipe): every line starts `cxc: `, reasoning's
 *   `cxc: reasoning: `, so what cxc says can be told from the rest of the log.
 * - the spinner (stderr at a terminal only): from each request until the first visible output,
 *   and while a tool runs, with the elapsed time and the tokens of the answer so far.
 * - `--format json`: stdout gets every stored event as one JSON line (NDJSON), nothing else.
 *
 * All model and tool text is sanitized before it is written (core/present/sanitize.ts).
 */
import {
  type ConversationEvent,
  serializeEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "../../core/conversation/events.js";
import { sanitizeTerminalText, stringifyJson } from "../../core/present/sanitize.js";
import type { ToolCallEnd, TurnDisplay } from "../../query/turn-loop.js";
import { MarkdownStream } from "./markdown-stream.js";
import { Spinner } from "./spinner.js";
import { toolCallLine, toolResultLines } from "./tool-lines.js";

/** Where and how a text display writes. */
export interface TextDisplayOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly modelId: string;
  /** Columns for markdown at a terminal; absent: the plain text (a pipe, `CXC_PLAIN`, no colour). */
  readonly markdownWidth?: number;
  readonly showReasoning: boolean;
  /** Styles: dimmed chrome on stderr and the answer's markdown styles (colour is on). */
  readonly decorate: boolean;
  /** The spinner on stderr (stderr is a terminal). */
  readonly spinner: boolean;
  /** Whether stderr is a terminal: elsewhere every line starts `cxc: `. */
  readonly stderrIsTerminal: boolean;
  /** `--no-stream`: print the answer once it is complete. */
  readonly buffered: boolean;
}

const DIM = "\u001b[2m";
const NORMAL = "\u001b[22m";
/** Characters per token, for the spinner's running count (an estimate until the provider reports). */
const CHARACTERS_PER_TOKEN = 4;

/** The text display (see the module comment). */
export class TextTurnDisplay implements TurnDisplay {
  readonly #options: TextDisplayOptions;
  readonly #spinner: Spinner | undefined;
  readonly #markdown: MarkdownStream | undefined;
  #buffer = "";
  #wroteText = false;
  #endsWithNewline = true;
  #separateNextText = false;
  #inReasoning = false;
  /** Whether the next reasoning text starts a line (for the `cxc: reasoning: ` prefix). */
  #reasoningLineStart = true;
  /** Characters of answer and reasoning received this turn (the spinner's token estimate). */
  #received = 0;

  constructor(options: TextDisplayOptions) {
    this.#options = options;
    this.#spinner = options.spinner ? new Spinner(options.stderr, { dim: options.decorate }) : undefined;
    if (options.markdownWidth !== undefined) {
      this.#markdown = new MarkdownStream(options.markdownWidth, (text) => this.#writeOut(text), {
        styles: options.decorate,
      });
    }
  }

  requestStarted(cycle: number): void {
    if (cycle > 0 && this.#wroteText) this.#separateNextText = true;
    this.#spin(`waiting for ${this.#options.modelId}`);
  }

  textDelta(text: string): void {
    this.#count(text);
    // --no-stream shows nothing until the end: the spinner keeps running meanwhile.
    if (this.#options.buffered) this.#spinner?.relabel("receiving the answer");
    else this.#spinner?.stop();
    this.#endReasoning();
    const clean = sanitizeTerminalText(text);
    if (this.#separateNextText) {
      this.#separateNextText = false;
      // A blank line between the cycles' texts (the markdown renderer never doubles one).
      this.#emitText(this.#endsWithNewline && !this.#markdown ? "\n" : "\n\n");
    }
    this.#wroteText = true;
    this.#emitText(clean);
  }

  reasoningDelta(text: string): void {
    this.#count(text);
    if (!this.#options.showReasoning) {
      // Hidden reasoning is still progress: the spinner says the model is thinking.
      this.#spinner?.relabel("thinking");
      return;
    }
    this.#spinner?.stop();
    this.#markdown?.settle();
    const clean = sanitizeTerminalText(text);
    if (!this.#options.stderrIsTerminal) {
      this.#inReasoning = true;
      // One prefix per line: a log reader tells reasoning from the rest by its start.
      const lines = clean.split("\n");
      const prefixed = lines.map((line, index) => {
        const starts = index > 0 || this.#reasoningLineStart;
        return starts && (line.length > 0 || index < lines.length - 1) ? `cxc: reasoning: ${line}` : line;
      });
      const written = prefixed.join("\n");
      if (written.length > 0) this.#reasoningLineStart = clean.endsWith("\n");
      this.#options.stderr.write(written);
      return;
    }
    if (!this.#inReasoning) {
      this.#inReasoning = true;
      this.#options.stderr.write(this.#options.decorate ? `${DIM}[reasoning]\n` : "[reasoning]\n");
    }
    this.#options.stderr.write(clean);
  }

  eventStored(_event: ConversationEvent): void {}

  toolStarted(call: ToolCallRequest): void {
    this.#beforeChrome();
    if (this.#wroteText) this.#separateNextText = true;
    this.#chrome(toolCallLine(call).line);
  }

  toolRunning(call: ToolCallRequest): void {
    this.#spin(`running ${sanitizeTerminalText(call.name)}`);
  }

  toolFinished(_call: ToolCallRequest, response: ToolCallResponse, end: ToolCallEnd, shown?: string): void {
    this.#spinner?.stop();
    for (const line of toolResultLines(response, end, shown)) this.#chrome(line);
  }

  notice(text: string): void {
    this.#beforeChrome();
    this.#chrome(`cxc: ${sanitizeTerminalText(text)}`);
  }

  /** Clears the way for a line written to stderr from outside (a retry warning). */
  beforeExternalLine(): void {
    this.#spinner?.clear();
    this.#endReasoning();
    this.#markdown?.settle();
  }

  finish(_failed: boolean): void {
    this.#spinner?.stop();
    this.#endReasoning();
    if (this.#options.buffered && this.#buffer.length > 0) {
      // --no-stream: the whole answer at once, rendered the same way a stream would be.
      if (this.#markdown) this.#markdown.push(this.#buffer);
      else this.#writeOut(this.#buffer);
    }
    this.#buffer = "";
    // The markdown renderer ends its last row itself.
    if (this.#markdown) this.#markdown.finish();
    else if (this.#wroteText && !this.#endsWithNewline) this.#writeOut("\n");
  }

  #spin(label: string): void {
    if (this.#spinner === undefined) return;
    this.#markdown?.settle();
    this.#spinner.start(label);
    this.#spinner.setTokens(Math.round(this.#received / CHARACTERS_PER_TOKEN));
  }

  #count(text: string): void {
    this.#received += text.length;
    this.#spinner?.setTokens(Math.round(this.#received / CHARACTERS_PER_TOKEN));
  }

  #beforeChrome(): void {
    this.#spinner?.stop();
    this.#endReasoning();
    this.#markdown?.settle();
  }

  #emitText(text: string): void {
    if (this.#options.buffered) this.#buffer += text;
    else if (this.#markdown) this.#markdown.push(text);
    else this.#writeOut(text);
  }

  #writeOut(text: string): void {
    if (text.length === 0) return;
    this.#options.stdout.write(text);
    this.#endsWithNewline = text.endsWith("\n");
  }

  #endReasoning(): void {
    if (!this.#inReasoning) return;
    this.#inReasoning = false;
    if (!this.#options.stderrIsTerminal) {
      if (!this.#reasoningLineStart) this.#options.stderr.write("\n");
      this.#reasoningLineStart = true;
      return;
    }
    // The reasoning ends its line, then a blank line parts it from what follows.
    this.#options.stderr.write(`${this.#options.decorate ? NORMAL : ""}\n\n`);
  }

  #chrome(line: string): void {
    if (!this.#options.stderrIsTerminal) {
      this.#options.stderr.write(`${line.startsWith("cxc: ") ? line : `cxc: ${line}`}\n`);
      return;
    }
    const text = this.#options.decorate ? `${DIM}${line}${NORMAL}` : line;
    this.#options.stderr.write(`${text}\n`);
  }
}

/** `--format json`: every stored event as one JSON line on stdout. */
export class JsonTurnDisplay implements TurnDisplay {
  readonly #stdout: NodeJS.WriteStream;
  readonly #stderr: NodeJS.WriteStream;

  constructor(stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream) {
    this.#stdout = stdout;
    this.#stderr = stderr;
  }

  requestStarted(): void {}
  textDelta(): void {}
  reasoningDelta(): void {}
  toolStarted(): void {}
  toolRunning(): void {}
  toolFinished(): void {}
  finish(): void {}

  eventStored(event: ConversationEvent): void {
    this.#stdout.write(`${stringifyJson(serializeEvent(event))}\n`);
  }

  notice(text: string): void {
    this.#stderr.write(`cxc: ${sanitizeTerminalText(text)}\n`);
  }
}
