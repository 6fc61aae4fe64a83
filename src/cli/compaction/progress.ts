/**
 * Progress on stderr while a summary is generated. At a terminal: one self-erasing line with a
 * spinner, the elapsed time and the tokens received so far (`⠹ summarizing turns 2..8 with
 * anthropic/claude-sonnet-4-6 3.4s · 212 tokens`). Elsewhere (a pipe, a log, a test): one notice
 * line when it starts (`cxc: Generating summary of …...`), because redrawn lines would only be
 * noise in a file.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A running progress indicator. */
export interface Progress {
  /** Records the tokens generated so far (shown on the next redraw). */
  setTokens(tokens: number): void;
  /** Erases the line (terminal) and stops redrawing; safe to call twice. */
  stop(): void;
}

/** Starts progress for `label` on `output` (stderr). */
export function startProgress(output: NodeJS.WriteStream, label: string): Progress {
  if (!output.isTTY) {
    output.write(`cxc: ${label}...\n`);
    return { setTokens: () => undefined, stop: () => undefined };
  }
  const started = Date.now();
  let tokens = 0;
  let frame = 0;
  const draw = (): void => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const count = tokens > 0 ? ` · ${tokens} tokens` : "";
    output.write(`\r\u001b[2K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s${count}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  draw();
  let stopped = false;
  return {
    setTokens: (value) => {
      tokens = value;
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      output.write("\r\u001b[2K");
    },
  };
}
