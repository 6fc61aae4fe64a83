/**
 * The entry of dist/hook.cjs: `cxc hook claude-code|codex`, the command an agent runs as its hook
 * (src/cli/hooks/run-hook.ts). bin/cxc.cjs runs it for exactly those two words, so a hook loads
 * neither the command-line parser nor the other commands; `cxc hook --help` and anything with more
 * words go through the whole CLI, which runs the same function.
 *
 * Whatever happens it exits 0: a hook never breaks the agent (failures go to the state
 * directory's `hooks.log`).
 */
import { HOOK_AGENTS, type HookAgent, runAgentHook } from "./hooks/run-hook.js";

/** Reads standard input to its end; nothing when it is a terminal; gives up waiting after 10 s. */
export function readHookStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (): void => resolve(Buffer.concat(chunks).toString("utf8"));
    const timer = setTimeout(done, 10_000);
    timer.unref();
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on("end", () => {
      clearTimeout(timer);
      done();
    });
    process.stdin.on("error", () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Runs the hook of `argv[1]`'s agent and prints what it returns. */
export async function main(argv: readonly string[]): Promise<void> {
  const agent = argv[1] as HookAgent;
  if (!HOOK_AGENTS.includes(agent)) return;
  const output = await runAgentHook({
    agent,
    stdin: await readHookStdin(),
    env: process.env,
    cwd: process.cwd(),
  });
  if (output !== "") process.stdout.write(`${output}\n`);
  process.exitCode = 0;
}
