/**
 * Long output at a terminal goes through a pager, as git does it: `CXC_PAGER`, else `PAGER`, else
 * `less`, started only when stdout is a terminal and the text is taller than the screen (so short
 * output never leaves the user in a pager, whatever the pager). `less` gets `LESS=FRX` unless
 * `LESS` is set: quit when the text fits, keep colours, leave the text on the screen. An empty
 * pager or `cat` means no pager. The command is split on spaces and run without a shell. A pager
 * that cannot be started falls back to writing the text directly. See docs/commands.md (print).
 */
import { spawn } from "node:child_process";

/** Where the text goes and what decides paging. */
export interface PagerTarget {
  readonly stdout: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
  /** `--no-pager`. */
  readonly disabled: boolean;
}

/** The pager's argv, or undefined for none. */
export function pagerCommand(env: NodeJS.ProcessEnv): string[] | undefined {
  const chosen = env.CXC_PAGER ?? env.PAGER ?? "less";
  const argv = chosen
    .trim()
    .split(/\s+/)
    .filter((part) => part !== "");
  if (argv.length === 0 || argv[0] === "cat") return undefined;
  return argv;
}

/** How many screen rows `text` takes at `columns` columns (escape sequences take none). */
export function countScreenRows(text: string, columns: number): number {
  const width = Math.max(1, columns);
  let rows = 0;
  for (const line of text.replace(/\n$/, "").split("\n")) {
    const visible = line.replace(/\u001b\[[0-9;]*m/g, "").length;
    rows += Math.max(1, Math.ceil(visible / width));
  }
  return rows;
}

/** Whether `text` should be paged on `target`. */
export function shouldPage(text: string, target: PagerTarget): boolean {
  if (target.disabled || !target.stdout.isTTY) return false;
  if (pagerCommand(target.env) === undefined) return false;
  const rows = target.stdout.rows ?? 24;
  return countScreenRows(text, target.stdout.columns ?? 80) >= rows;
}

/** Writes `text` to stdout, through the pager when `shouldPage` says so. */
export async function writePaged(text: string, target: PagerTarget): Promise<void> {
  if (shouldPage(text, target) && (await runPager(text, pagerCommand(target.env)!, target.env))) return;
  target.stdout.write(text);
}

/** True when the pager ran (whatever it exited with); false when it could not be started. */
function runPager(text: string, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    // Ctrl-C belongs to the pager while it runs (less uses it to stop a search), as with git.
    const ignoreInterrupt = (): void => undefined;
    process.on("SIGINT", ignoreInterrupt);
    const finish = (ran: boolean): void => {
      process.off("SIGINT", ignoreInterrupt);
      resolve(ran);
    };
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...env, LESS: env.LESS ?? "FRX", LV: env.LV ?? "-c" },
    });
    let started = false;
    child.once("spawn", () => {
      started = true;
      // A pager quit before reading everything closes the pipe: not an error.
      child.stdin.on("error", () => undefined);
      child.stdin.end(text);
    });
    child.once("error", () => {
      if (!started) finish(false);
    });
    child.once("close", () => {
      if (started) finish(true);
    });
  });
}
