/**
 * Drives an interactive command in a real pseudo-terminal through tmux: start it in a detached
 * session (200×50), send keys, read the screen, and collect the exit code. Each session runs on
 * its own tmux server socket, so tests never touch a user's tmux.
 *
 * tmux is required (`.ci/run` installs it): without it these tests fail with a message saying so,
 * rather than skipping, so a missing terminal never passes silently.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let tmuxChecked = false;

/** Throws a clear error when tmux is not on PATH. */
function requireTmux(): void {
  if (tmuxChecked) return;
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
  } catch {
    throw new Error("the terminal tests need tmux on PATH (Debian: apt-get install tmux)");
  }
  tmuxChecked = true;
}

/** A running command in a tmux pane. */
export interface PtySession {
  /** Sends tmux key names or literal text (`literal: true`). */
  send(keys: string, options?: { literal?: boolean }): void;
  /** The visible screen, trailing blank lines removed; `styles`: with its SGR sequences. */
  screen(options?: { styles?: boolean }): string;
  /** Waits until the screen matches; throws with the screen when it times out. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for the command to exit; resolves with its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Kills the tmux server of this session and removes its files. */
  close(): void;
}

let counter = 0;

/** Starts `command` (argv) with `env` (replacing the environment) in `cwd`. */
export function startInTmux(
  command: readonly string[],
  options: { env: Record<string, string>; cwd: string; width?: number; height?: number },
): PtySession {
  requireTmux();
  const directory = mkdtempSync(join(tmpdir(), "cxc-pty-"));
  const socket = `cxc-test-${process.pid}-${++counter}`;
  const exitFile = join(directory, "exit-code");
  const script = join(directory, "run.sh");
  const exports = Object.entries({ TERM: "xterm-256color", ...options.env })
    .map(([name, value]) => `export ${name}=${quote(value)}`)
    .join("\n");
  writeFileSync(
    script,
    // A trap with a command (not an ignore) keeps this shell alive on Ctrl-C, so the exit code is
    // recorded, while the command itself still gets the default SIGINT disposition.
    `trap 'true' INT\ncd ${quote(options.cwd)}\n${exports}\n${command.map(quote).join(" ")}\necho $? > ${quote(exitFile)}\nsleep 600\n`,
  );
  const tmux = (...args: string[]): string =>
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  tmux(
    "new-session",
    "-d",
    "-x",
    String(options.width ?? 200),
    "-y",
    String(options.height ?? 50),
    `env -i PATH=${quote(process.env.PATH ?? "")} sh ${quote(script)}`,
  );
  const screen = (screenOptions: { styles?: boolean } = {}): string =>
    tmux("capture-pane", "-p", ...(screenOptions.styles ? ["-e"] : [])).replace(/\n+$/, "");
  return {
    send: (keys, sendOptions = {}) => {
      tmux("send-keys", ...(sendOptions.literal ? ["-l"] : []), keys);
    },
    screen,
    waitFor: async (pattern, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text)) return text;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    exitCode: async (timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          const text = readFileSync(exitFile, "utf8").trim();
          if (text !== "") return Number(text);
        } catch {
          // Not finished yet.
        }
        if (Date.now() > deadline) throw new Error(`the command did not exit; screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
