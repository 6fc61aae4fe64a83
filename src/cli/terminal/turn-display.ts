/**
 * What a turn shows: the answer on stdout, everything else on stderr.
 *
 * - text: the answer, streamed. At a terminal it renders as markdown block by block; in a pipe it
 *   is the plain text, nothing else, so `cxc q … > answer.md` captures exactly the answer.
 * - reasoning: stderr, dimmed at a terminal; hidden in pipes unless asked for.
 * - tool calls, notices, the waiting spinner: stderr (the spinner only at a terminal).
 * - `--format json`: stdout gets every stored event as one JSON line (NDJSON), nothing else.
 *
 * All model and tool text is sanitized before it is written (core/sanitize.ts).
 */
import {
  type ConversationEvent,
  serializeEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "../../core/events.js";
import { sanitizeTerminalText, stringifyJson } from "../../core/sanitize.js";
import type { TurnDisplay } from "../../query/turn-loop.js";
import { MarkdownStream } from "./markdown-stream.js";
import { Spinner } from "./spinner.js";

/** Where and how a text display writes. */
export interface TextDisplayOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly modelId: string;
  /** Renders the answer as markdown (set when stdout is a terminal; see markdown.ts). */
  readonly renderMarkdown?: (text: string) => string;
  readonly showReasoning: boolean;
  /** Colours and the spinner on stderr (stderr is a terminal and colour is on). */
  readonly decorate: boolean;
  /** `--no-stream`: print the answer once it is complete. */
  readonly buffered: boolean;
}

const DIM = "\u001b[2m";
const NORMAL = "\u001b[22m";
const MAX_TOOL_LINE = 160;

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

  constructor(options: TextDisplayOptions) {
    this.#options = options;
    this.#spinner = options.decorate ? new Spinner(options.stderr) : undefined;
    if (options.renderMarkdown) {
      this.#markdown = new MarkdownStream(options.renderMarkdown, (text) => this.#writeOut(text));
    }
  }

  requestStarted(cycle: number): void {
    if (cycle > 0 && this.#wroteText) this.#separateNextText = true;
    this.#spinner?.start(`waiting for ${this.#options.modelId}`);
  }

  textDelta(text: string): void {
    this.#spinner?.stop();
    this.#endReasoning();
    const clean = sanitizeTerminalText(text);
    if (this.#separateNextText) {
      this.#separateNextText = false;
      this.#emitText(this.#endsWithNewline ? "\n" : "\n\n");
    }
    this.#wroteText = true;
    this.#emitText(clean);
  }

  reasoningDelta(text: string): void {
    if (!this.#options.showReasoning) return;
    this.#spinner?.stop();
    if (!this.#inReasoning) {
      this.#inReasoning = true;
      this.#options.stderr.write(this.#options.decorate ? DIM : "");
    }
    this.#options.stderr.write(sanitizeTerminalText(text));
  }

  eventStored(_event: ConversationEvent): void {}

  toolStarted(call: ToolCallRequest): void {
    this.#spinner?.stop();
    this.#endReasoning();
    this.#markdown?.flush();
    if (this.#wroteText) this.#separateNextText = true;
    const argumentsText = oneLine(JSON.stringify(call.arguments));
    this.#chrome(`⚙ ${sanitizeTerminalText(call.name)} ${argumentsText}`);
  }

  toolFinished(_call: ToolCallRequest, response: ToolCallResponse): void {
    const label = response.is_error ? "error" : "ok";
    this.#chrome(`  ↳ ${label}: ${oneLine(response.content) || "(no output)"}`);
  }

  notice(text: string): void {
    this.#spinner?.stop();
    this.#endReasoning();
    this.#chrome(`cxc: ${sanitizeTerminalText(text)}`);
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
    this.#markdown?.flush();
    if (this.#wroteText && !this.#endsWithNewline) this.#writeOut("\n");
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
    this.#options.stderr.write(`${this.#options.decorate ? NORMAL : ""}\n`);
  }

  #chrome(line: string): void {
    const text = this.#options.decorate ? `${DIM}${line}${NORMAL}` : line;
    this.#options.stderr.write(`${text}\n`);
  }
}

/** One line of at most MAX_TOOL_LINE characters, sanitized. */
function oneLine(text: string): string {
  const flat = sanitizeTerminalText(text).replace(/\s+/g, " ").trim();
  return flat.length > MAX_TOOL_LINE ? `${flat.slice(0, MAX_TOOL_LINE - 1)}…` : flat;
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
  toolFinished(): void {}
  finish(): void {}

  eventStored(event: ConversationEvent): void {
    this.#stdout.write(`${stringifyJson(serializeEvent(event))}\n`);
  }

  notice(text: string): void {
    this.#stderr.write(`cxc: ${sanitizeTerminalText(text)}\n`);
  }
}
