/**
 * `cxc conversation export [ID] [--to jp|openai|anthropic|cxc|claude-code|pi|codex|gemini]
 * [--output PATH] [--model M]`: writes a conversation for another tool. `jp` writes a jp
 * conversation directory into PATH (default: the current directory); the coding agents get a new
 * session holding the projected view, in the agent's own folder unless PATH, and the command that
 * resumes it; the others write one document to PATH or standard output.
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { AGENT_FORMATS, type AgentFormat } from "../../../core/interop/agents.js";
import { escapeJsonControls } from "../../../core/present/sanitize.js";
import { CliContext } from "../../context.js";
import { loadInterop, timestampNow } from "../../../store/index.js";
import { ID_ARGUMENT, resolveConversation } from "../../targets.js";
import { AGENT_NAMES } from "../../../core/interop/agents.js";
import { describeCompactionRange } from "../../../core/present/labels.js";
import { activePins } from "../../../core/conversation/pins.js";
import { loadConfig } from "../../config.js";
import { querySettingsOfRecall } from "../../../query/recall.js";
import { analyzeRecall, placeRecallIndex } from "../../../core/conversation/recall.js";
import { recallOptions } from "../../../tools/recall.js";
import type { ConversationEvent } from "../../../core/conversation/events.js";

interface ExportOptions {
  to: "jp" | "openai" | "anthropic" | "cxc" | AgentFormat;
  output?: string;
  model?: string;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description(
      "export a conversation as a jp directory, a request body, a cxc document, or a session of Claude Code, pi, Codex, Gemini CLI or opencode",
    )
    .argument("[ID]", ID_ARGUMENT)
    .addOption(
      new Option("--to <FORMAT>", "the format to write")
        .choices(["jp", "openai", "anthropic", "cxc", ...AGENT_FORMATS])
        .default("cxc"),
    )
    .option(
      "--output <PATH>",
      "where to write (jp: the parent directory; an agent: the session file, default the agent's folder; others: a file)",
    )
    .option(
      "--model <MODEL>",
      "the model to name in a request body, or the one a Claude Code, pi or Gemini CLI session resumes with (codex: provider/model names the provider Codex resumes under)",
    )
    .action(async (idArgument: string | undefined, options: ExportOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { recordAgentExport, renderExport, writeAgentExport, writeExportFile, writeJpExport } =
        await loadInterop();
      const id = await resolveConversation(context, idArgument);
      const loaded = context.store.load(id);
      for (const warning of loaded.warnings) context.warn(warning);
      const agent = (AGENT_FORMATS as readonly string[]).includes(options.to)
        ? (options.to as AgentFormat)
        : undefined;
      if (agent !== undefined) {
        const now = timestampNow();
        const recallIndex = await exportRecallIndex(context, agent, id, loaded.events);
        const written = writeAgentExport(loaded, {
          ...(recallIndex === undefined ? {} : { recallIndex }),
          agent,
          ...(options.output === undefined ? {} : { output: resolve(context.cwd, options.output) }),
          ...(options.model === undefined ? {} : { model: options.model }),
          cwd: context.cwd,
          env: context.env,
          now,
        });
        // Recorded, so the session resumed in the agent can come back: `import FILE --update`.
        if (written.lines !== undefined || written.opencodeDocument !== undefined) {
          await recordAgentExport(context.store, id, {
            agent,
            sessionId: written.sessionId,
            path: written.path,
            ...(written.lines === undefined ? {} : { lines: written.lines }),
            ...(written.opencodeDocument === undefined ? {} : { opencodeDocument: written.opencodeDocument }),
            now,
          });
        }
        for (const warning of written.warnings) context.warn(warning);
        const resume = resumeCommand(written.resume, written.cwd, context.cwd);
        const importing =
          written.importCommand === undefined
            ? undefined
            : resumeCommand(written.importCommand, written.cwd, context.cwd);
        const inScripts =
          written.resumeInScripts === undefined
            ? undefined
            : resumeCommand(written.resumeInScripts, written.cwd, context.cwd);
        if (context.json) {
          context.outJson({
            id,
            format: agent,
            path: written.path,
            session_id: written.sessionId,
            cwd: written.cwd,
            ...(importing === undefined ? {} : { import: importing }),
            resume,
            ...(inScripts === undefined ? {} : { resume_in_scripts: inScripts }),
          });
          return;
        }
        context.out(`Exported ${id} to ${written.path}`);
        if (importing !== undefined) context.out(`Import it into opencode with: ${importing}`);
        if (written.agentPath !== undefined) {
          context.info(
            `${AGENT_NAMES[agent]} resumes a session from its own folder: copy the file to ${written.agentPath} first`,
          );
        }
        context.out(`Continue it with: ${resume}`);
        if (inScripts !== undefined) context.out(`In a script: ${inScripts}`);
        return;
      }
      if (options.to === "jp") {
        const { directory, leftOut } = writeJpExport(loaded, resolve(context.cwd, options.output ?? "."));
        const ranges = leftOut.map(describeCompactionRange);
        if (context.json) context.outJson({ id, format: "jp", path: directory, left_out: ranges });
        else context.out(`Exported ${id} to ${directory}`);
        if (ranges.length > 0) {
          const what =
            ranges.length === 1
              ? "1 compaction inside a turn was"
              : `${ranges.length} compactions inside a turn were`;
          context.warn(
            `jp has no cycles, so ${what} left out (${ranges.join("; ")}); jp shows those cycles uncompacted`,
          );
        }
        const pins = activePins(loaded.events).length;
        if (pins > 0) {
          context.warn(
            `jp has no pins, so ${pins === 1 ? "1 pin was" : `${pins} pins were`} left out; a compaction jp writes may drop the messages they keep`,
          );
        }
        return;
      }
      const text = renderExport(
        loaded,
        options.to as "cxc" | "openai" | "anthropic",
        options.model ? { model: options.model } : {},
      );
      if (options.output === undefined || options.output === "-") {
        process.stdout.write(escapeJsonControls(text));
        return;
      }
      const path = resolve(context.cwd, options.output);
      writeExportFile(path, text);
      if (context.json) context.outJson({ id, format: options.to, path });
      else context.info(`Exported ${id} to ${path}`);
    });
}

/** The shell command that resumes an exported session, starting in its working directory. */
function resumeCommand(words: readonly string[], sessionCwd: string, cwd: string): string {
  const command = words.map((word) => (word === "…" ? '"…"' : shellWord(word))).join(" ");
  return sessionCwd === cwd ? command : `cd ${shellWord(sessionCwd)} && ${command}`;
}

/** A word the shell reads back as itself (single-quoted unless plainly safe). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The recall index a Claude Code, pi or Codex session carries (docs/recall.md, "Exports"): what
 * the conversation's compactions hid, its references naming the conversation (`cxc <id> turn 3,
 * call 1`), which the agent's `recall` (cxc mcp, the pi extension) reads from the store.
 */
async function exportRecallIndex(
  context: CliContext,
  agent: string,
  id: string,
  events: readonly ConversationEvent[],
): Promise<{ text: string; beforeEventId?: string } | undefined> {
  if (agent !== "claude-code" && agent !== "pi" && agent !== "codex") return undefined;
  const settings = querySettingsOfRecall(
    loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg }).values,
  );
  if (!settings.enabled) return undefined;
  const placement = placeRecallIndex(analyzeRecall(events, recallOptions(settings, `cxc ${id}`)));
  if (placement === undefined) return undefined;
  return placement.beforeEventId === undefined
    ? { text: placement.text }
    : { text: placement.text, beforeEventId: placement.beforeEventId };
}
