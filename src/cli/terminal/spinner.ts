/**
 * A one-line waiting indicator on stderr (terminals only): `⠋ waiting for anthropic/… 1.2s`.
 * It erases itself before anything else is printed.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Spinner {
  readonly #output: NodeJS.WriteStream;
  #timer: NodeJS.Timeout | undefined;
  #started = 0;
  #frame = 0;
  #label = "";

  constructor(output: NodeJS.WriteStream) {
    this.#output = output;
  }

  start(label: string): void {
    this.stop();
    this.#label = label;
    this.#started = Date.now();
    this.#timer = setInterval(() => this.#draw(), 100);
    this.#timer.unref();
    this.#draw();
  }

  /** Erases the line; safe to call when not spinning. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#output.write("\r\u001b[2K");
  }

  #draw(): void {
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    this.#output.write(`\r\u001b[2K${frame} ${this.#label} ${seconds}s`);
  }
}
