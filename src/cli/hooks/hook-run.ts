/**
 * What one run of `cxc hook <agent>` knows: the agent, its hook input, the environment. A leaf
 * module, so the jobs (hook-advise.ts, hook-restore.ts) and the dispatcher (run-hook.ts) share it
 * without importing each other.
 */

/** The agents cxc has hooks for. */
export const HOOK_AGENTS = ["claude-code", "codex", "gemini", "opencode"] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/** One run of the hook. */
export interface HookRun {
  readonly agent: HookAgent;
  /** What the agent wrote on stdin. */
  readonly stdin: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory of the hook process (the input's `cwd` wins). */
  readonly cwd: string;
  /**
   * Run by hand (stdout is a terminal, never so when an agent runs it): the advice is printed
   * but not recorded, so the session's next real `Stop` is not robbed of its announcement.
   */
  readonly handRun?: boolean;
}
