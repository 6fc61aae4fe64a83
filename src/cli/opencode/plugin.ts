/**
 * cxc inside opencode: a plugin (dist/opencode/plugin.js, an ES module opencode loads itself, in
 * its own runtime). `cxc hooks install --agent opencode` writes a two-line plugin file into
 * opencode's `plugins/` folder that imports this one with the absolute paths of this Node and this
 * cxc (src/cli/hooks/opencode-plugin.ts). It holds no cxc logic: each job runs `cxc hook opencode`
 * with a hook input on stdin, as Claude Code runs cxc's hooks, and that command reads the session
 * from opencode's database (read-only) and answers (src/cli/hooks/run-hook.ts).
 *
 * - `session.idle` (the end of a turn): the context of the session's last request, as opencode's
 *   provider reported it, goes to the hook, which stays silent below the advisor's notice line and
 *   above it runs cxc's advisor; an announced tier is shown as a toast. opencode does not wait for
 *   event handlers, so the plugin's `dispose` waits for a running advice (a one-shot `opencode run`
 *   would otherwise exit under it).
 * - `experimental.chat.messages.transform` (before each model request, and before opencode's
 *   summarizer): a request that holds opencode's summary (an assistant message marked `summary`)
 *   gets the facts of the raw turns and the pinned messages after the summary, as a text part of
 *   that message, in this request only (the stored messages are not changed). They are asked once
 *   per summary and kept in memory.
 * - `experimental.session.compacting`: with `hooks.restore.compaction_prompt = true` in cxc's
 *   configuration, the same facts go into opencode's summarizer prompt too.
 *
 * Fails open: a missing Node or cxc, a hook that fails or takes longer than its timeout, any
 * output that is not what is expected: the request goes out as opencode built it, and nothing is
 * shown (the hook logs its own failures in cxc's `hooks.log`).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What opencode hands a plugin (the parts cxc uses). */
interface PluginInput {
  readonly client?: {
    readonly tui?: {
      showToast?(options: {
        body: { title?: string; message: string; variant: string; duration?: number };
      }): unknown;
    };
  };
  readonly directory?: string;
}

/** A message as opencode's hooks hand it over: its `info` and its parts. */
interface OpencodeMessage {
  readonly info: {
    readonly id: string;
    readonly sessionID?: string;
    readonly role?: string;
    readonly summary?: unknown;
  };
  readonly parts: readonly Record<string, unknown>[];
}

/** An assistant message's `info` as `message.updated` carries it. */
interface AssistantInfo {
  readonly role?: string;
  readonly sessionID?: string;
  readonly summary?: unknown;
  readonly modelID?: string;
  readonly providerID?: string;
  readonly tokens?: {
    readonly input?: number;
    readonly output?: number;
    readonly cache?: { readonly read?: number; readonly write?: number };
  };
}

/** Where cxc is, when the installed plugin file says so. */
export interface CxcPluginOptions {
  /** The Node that runs cxc (else `node` on PATH). */
  readonly node?: string;
  /** cxc's `bin/cxc.cjs` (else the one beside this file, `../../bin/cxc.cjs`). */
  readonly cxc?: string;
}

/** How long a hook may take; its own timeout in the other agents is 30 s. */
const HOOK_TIMEOUT_MS = 30_000;
/** The id of the part holding cxc's facts (so a request never gets them twice). */
const FACTS_PART_ID = "prt_cxc_restore";

/** opencode's data folder (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`), or its `OPENCODE_DB`. */
function databasePath(env: NodeJS.ProcessEnv): string {
  if (env.OPENCODE_DB !== undefined && isAbsolute(env.OPENCODE_DB)) return env.OPENCODE_DB;
  const data =
    env.XDG_DATA_HOME !== undefined && isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : join(homedir(), ".local", "share");
  return join(data, "opencode");
}

/** The context a reply's usage stands for: its prompt (cached parts too) and its answer. */
function contextTokens(info: AssistantInfo): number {
  const tokens = info.tokens ?? {};
  const count = (value: number | undefined) =>
    typeof value === "number" && Number.isFinite(value) ? value : 0;
  return count(tokens.input) + count(tokens.cache?.read) + count(tokens.cache?.write) + count(tokens.output);
}

/** The `additionalContext` of a hook's output, or "" for none. */
function additionalContext(stdout: string): string {
  try {
    const value = JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: unknown } };
    const context = value.hookSpecificOutput?.additionalContext;
    return typeof context === "string" ? context : "";
  } catch {
    return "";
  }
}

/** cxc's plugin for opencode. */
export async function CxcPlugin(input: PluginInput, options: CxcPluginOptions = {}) {
  const cxc = options.cxc ?? fileURLToPath(new URL("../../bin/cxc.cjs", import.meta.url));
  const node = options.node ?? "node";
  const cwd = input.directory ?? process.cwd();
  const pending = new Set<Promise<unknown>>();
  /** The last reply's usage per session. */
  const usage = new Map<string, AssistantInfo>();
  /** The restore per summary message, once asked. */
  const restores = new Map<string, Promise<string>>();

  /** Runs `cxc hook opencode` with `hookInput`; resolves with its stdout ("" on any failure). */
  const runHook = (hookInput: Record<string, unknown>): Promise<string> => {
    if (!existsSync(cxc)) return Promise.resolve("");
    const run = new Promise<string>((resolve) => {
      // opencode's own binary beside the PATH cxc sees: a Node without SQLite reads its database
      // through `opencode db`.
      const own = basename(process.execPath).startsWith("opencode") ? dirname(process.execPath) : undefined;
      const env = {
        ...process.env,
        ...(own === undefined ? {} : { PATH: `${own}${delimiter}${process.env.PATH ?? ""}` }),
      };
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(node, [cxc, "hook", "opencode"], { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
      } catch {
        resolve("");
        return;
      }
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        child.kill();
        resolve("");
      }, HOOK_TIMEOUT_MS);
      child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.on("error", () => {
        clearTimeout(timer);
        resolve("");
      });
      child.on("close", () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString("utf8").trim());
      });
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(JSON.stringify({ cwd, transcript_path: databasePath(process.env), ...hookInput }));
    });
    pending.add(run);
    void run.finally(() => pending.delete(run));
    return run;
  };

  const advise = async (sessionID: string): Promise<void> => {
    const info = usage.get(sessionID);
    if (info === undefined) return;
    const stdout = await runHook({
      hook_event_name: "session.idle",
      session_id: sessionID,
      context_tokens: contextTokens(info),
      ...(info.modelID === undefined ? {} : { model: `${info.providerID ?? ""}/${info.modelID}` }),
    });
    if (stdout === "") return;
    let message: unknown;
    try {
      message = (JSON.parse(stdout) as { systemMessage?: unknown }).systemMessage;
    } catch {
      return;
    }
    if (typeof message !== "string" || message === "") return;
    try {
      await input.client?.tui?.showToast?.({
        body: { title: "cxc advisor", message, variant: "info", duration: 15_000 },
      });
    } catch {
      // No TUI to show it (opencode run): the advice is recorded all the same.
    }
  };

  return {
    event: async ({ event }: { event: { type: string; properties?: Record<string, unknown> } }) => {
      const properties = event.properties ?? {};
      if (event.type === "message.updated") {
        const info = properties.info as AssistantInfo | undefined;
        if (info?.role === "assistant" && info.summary !== true && typeof info.sessionID === "string") {
          if (contextTokens(info) > 0) usage.set(info.sessionID, info);
        }
      } else if (event.type === "session.idle" && typeof properties.sessionID === "string") {
        await advise(properties.sessionID);
      }
    },
    "experimental.chat.messages.transform": async (
      _input: unknown,
      output: { messages: OpencodeMessage[] },
    ) => {
      const messages = output.messages;
      const index = messages.findLastIndex(
        (message) => message.info.role === "assistant" && message.info.summary === true,
      );
      const summary = messages[index];
      if (summary === undefined || summary.parts.some((part) => part.id === FACTS_PART_ID)) return;
      const sessionID = summary.info.sessionID;
      if (typeof sessionID !== "string") return;
      let restore = restores.get(summary.info.id);
      if (restore === undefined) {
        restore = runHook({
          hook_event_name: "experimental.chat.messages.transform",
          session_id: sessionID,
        }).then(additionalContext);
        restores.set(summary.info.id, restore);
      }
      const text = await restore;
      if (text === "") return;
      // A new message object: the one opencode handed over may be shared with its own state.
      messages[index] = {
        ...summary,
        parts: [
          ...summary.parts,
          { id: FACTS_PART_ID, sessionID, messageID: summary.info.id, type: "text", text, synthetic: true },
        ],
      };
    },
    "experimental.session.compacting": async (
      hookInput: { sessionID?: string },
      output: { context: string[] },
    ) => {
      if (typeof hookInput.sessionID !== "string") return;
      const text = additionalContext(
        await runHook({
          hook_event_name: "experimental.session.compacting",
          session_id: hookInput.sessionID,
        }),
      );
      if (text !== "") output.context.push(text);
    },
    dispose: async () => {
      await Promise.allSettled([...pending]);
    },
  };
}
