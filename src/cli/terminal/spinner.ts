/**
 * A one-line waiting indicator on stderr (terminals only), dimmed when colour is on:
 * `⠋ waiting for anthropic/claude-sonnet-4-6 3.2s · 120 tokens` (the tokens of the turn's answer
 * so far, once there are some). It erases itself before anything else is printed.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_ROW = "\r\u001b[2K";

export class Spinner {
  readonly #output: NodeJS.WriteStream;
  #timer: NodeJS.Timeout | undefined;
  #started = 0;
  #frame = 0;
  #label = "";
  #tokens = 0;
  #drawn = false;
  readonly #dim: boolean;

  constructor(output: NodeJS.WriteStream, options: { dim: boolean }) {
    this.#output = output;
    this.#dim = options.dim;
  }

  /** Starts (or restarts, with a new label and clock) the indicator. */
  start(label: string): void {
    this.stop();
    this.#label = label;
    this.#started = Date.now();
    this.#timer = setInterval(() => this.#draw(), 100);
    this.#timer.unref();
    this.#draw();
  }

  /** A new label, keeping the clock (`waiting for …` becomes `thinking`). */
  relabel(label: string): void {
    this.#label = label;
  }

  setTokens(tokens: number): void {
    this.#tokens = tokens;
  }

  /** Erases the line for other output; it is drawn again on the next tick. */
  clear(): void {
    if (!this.#drawn) return;
    this.#output.write(CLEAR_ROW);
    this.#drawn = false;
  }

  /** Erases the line and stops; safe to call when not spinning. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.clear();
  }

  #draw(): void {
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    const tokens = this.#tokens > 0 ? ` · ${this.#tokens} ${this.#tokens === 1 ? "token" : "tokens"}` : "";
    const line = `${frame} ${this.#label} ${seconds}s${tokens}`;
    this.#output.write(`${CLEAR_ROW}${this.#dim ? `\u001b[2m${line}\u001b[22m` : line}`);
    this.#drawn = true;
  }
}
