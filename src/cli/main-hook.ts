/**
 * The entry of dist/hook.cjs: `cxc hook claude-code|codex|gemini`, the command an agent runs as its hook
 * (src/cli/hooks/run-hook.ts). bin/cxc.cjs runs it for exactly those two words, so a hook loads
 * neither the command-line parser nor the other commands; `cxc hook --help`, `cxc hook <other>`
 * and anything with more words go through the whole CLI, which runs the same function.
 *
 * Whatever happens it exits 0: a hook never breaks the agent (failures go to the state
 * directory's `hooks.log`; exit 2 from a `Stop` hook would make Claude Code continue the turn). An
 * agent name cxc has no hook for (a typo in the agent's settings) is logged too, so `cxc hooks
 * status` shows it.
 */
import { firstJsonValueEnd, isOneJsonValue } from "../core/json-syntax.js";
import { HOOK_AGENTS, type HookAgent, runAgentHook } from "./hooks/run-hook.js";
import { logHookFailure } from "./hooks/state.js";

/** How long the hook waits for its input when stdin neither ends nor completes a JSON value. */
const STDIN_FALLBACK_MS = 10_000;

/**
 * Reads the hook's input from standard input: up to the end of the first whole JSON object (the
 * agent may keep stdin open after writing it), or to the end of stdin when what comes is not
 * JSON; nothing when stdin is a terminal. Waiting gives up after 10 s, a fallback only.
 */
export function readHookStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (text?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.stdin.removeAllListeners("data");
      // Stop reading, and let the process end although the agent keeps the pipe open.
      process.stdin.pause();
      process.stdin.destroy();
      resolve(text ?? Buffer.concat(chunks).toString("utf8"));
    };
    const timer = setTimeout(() => done(), STDIN_FALLBACK_MS);
    timer.unref();
    process.stdin.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // A whole object ends with "}" (and perhaps a line break): only then is the input scanned,
      // so a request of megabytes (Gemini CLI's BeforeModel) is not scanned once per chunk.
      if (!/\}\s*$/.test(chunk.toString("latin1", Math.max(0, chunk.length - 16)))) return;
      const text = Buffer.concat(chunks).toString("utf8");
      // Mostly the input is one whole value: Node's own parser says so several times faster than
      // the scan, which finds where a value ends when something follows it.
      if (isOneJsonValue(text)) return done(text);
      const end = firstJsonValueEnd(text);
      if (typeof end === "number") done(text.slice(0, end));
    });
    process.stdin.on("end", () => done());
    process.stdin.on("error", () => done());
  });
}

/** Runs the hook of `argv[1]`'s agent and prints what it returns. */
export async function main(argv: readonly string[]): Promise<void> {
  process.exitCode = 0;
  const agent = argv[1] ?? "";
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
    logHookFailure(
      process.env,
      agent === "" ? "(none)" : agent,
      "input",
      `cxc has no hook for the agent ${JSON.stringify(agent)}: the agent's settings run \`cxc hook ${agent}\`; the agents are ${HOOK_AGENTS.join(", ")} (run \`cxc hooks install\` again)`,
    );
    return;
  }
  const handRun = process.stdout.isTTY === true;
  const output = await runAgentHook({
    agent: agent as HookAgent,
    stdin: await readHookStdin(),
    env: process.env,
    cwd: process.cwd(),
    handRun,
  });
  if (output !== "") process.stdout.write(`${output}\n`);
  if (handRun) {
    process.stderr.write(
      "cxc hook: run by hand (stdout is a terminal): the session's record was read, not written, so its next Stop in the agent announces as before\n",
    );
  }
}
