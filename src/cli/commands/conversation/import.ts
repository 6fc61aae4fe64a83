/**
 * `cxc conversation import PATH|- [--from jp|openai|anthropic|cxc|claude-code|pi|codex] [--skip-existing]
 * [--title T]`: brings conversations in from a jp workspace or conversation directory, an OpenAI or
 * Anthropic request body or messages array, a cxc export, or Claude Code, pi and Codex session files (one
 * file or a project's folder, streamed). Everything is read and validated before the first
 * conversation is created, so a bad file leaves the store untouched.
 */
import { Option, type Command } from "commander";
import { CxcError } from "../../../errors.js";
import type { AgentImportBatch, AgentImportOutcome } from "../../../store/index.js";
import { CliContext } from "../../context.js";

interface ImportOptions {
  from?: "jp" | "openai" | "anthropic" | "cxc" | "claude-code" | "pi" | "codex";
  skipExisting?: boolean;
  title?: string;
}

export function registerImport(conversation: Command): void {
  conversation
    .command("import")
    .description(
      "import conversations from jp, OpenAI or Anthropic messages, a cxc export, or Claude Code, pi and Codex sessions",
    )
    .argument("<PATH>", "a file or directory, or - for standard input")
    .addOption(
      new Option("--from <FORMAT>", "the format (detected when omitted)").choices([
        "jp",
        "openai",
        "anthropic",
        "cxc",
        "claude-code",
        "pi",
        "codex",
      ]),
    )
    .option("--skip-existing", "leave conversations that were imported before, import the rest")
    .option("--title <TITLE>", "a title for a conversation imported from a messages array")
    .action(async (path: string, options: ImportOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { loadInterop, newConversationId, newEventId, timestampNow } = await import(
        "../../../store/index.js"
      );
      const { detectAgentPath, jpToolsWarning, readAgentImport, readImport, saveAgentImport, saveImported } =
        await loadInterop();
      const { sanitizeTerminalText } = await import("../../../core/present/sanitize.js");
      const from = options.from;
      const agent =
        from === "claude-code" || from === "pi" || from === "codex"
          ? from
          : from === undefined && path !== "-"
            ? detectAgentPath(path)
            : undefined;
      if (agent !== undefined) {
        if (path === "-") {
          throw new CxcError("usage", `--from ${agent} reads a session file or folder, not standard input`, {
            hint: "pass the session file's path, or the folder that holds the sessions",
          });
        }
        const batch = await readAgentImport(path, agent);
        const outcomes = await saveAgentImport(context.store, batch, {
          skipExisting: options.skipExisting ?? false,
        });
        for (const warning of outcomes.flatMap((outcome) => outcome.warnings)) context.warn(warning);
        await reportAgentImport(context, batch, outcomes);
        return;
      }
      const documentFormat = from === "claude-code" || from === "pi" || from === "codex" ? undefined : from;
      if (path === "-" && context.stdinIsTerminal) {
        throw new CxcError("usage", "`import -` reads standard input, which is a terminal", {
          hint: "pipe a file into it (cxc conversation import - < request.json) or pass its path",
        });
      }
      const stdinText = path === "-" ? await context.readStdin() : undefined;
      const batch = readImport({
        path,
        ...(stdinText === undefined ? {} : { stdinText }),
        ...(documentFormat === undefined ? {} : { from: documentFormat }),
        ...(options.title ? { title: options.title } : {}),
        now: () => timestampNow(),
        newEventId: () => newEventId(),
        newConversationId: () => newConversationId(),
      });
      for (const warning of batch.warnings) context.warn(warning);
      const outcomes = await saveImported(context.store, batch.conversations, {
        skipExisting: options.skipExisting ?? false,
      });
      // Said once, for what was imported: jp's tools do not come along (the first `q` says it again).
      const tools = jpToolsWarning(
        outcomes.filter((outcome) => !outcome.skipped).map((outcome) => outcome.conversation),
      );
      if (tools !== undefined) context.warn(tools);
      if (context.json) {
        context.outJson(
          outcomes.map(({ conversation: imported, turns, skipped }) => ({
            source: imported.sourceId,
            id: imported.id,
            title: imported.title ?? null,
            turns,
            events: imported.events.length,
            archived: imported.archived,
            skipped,
          })),
        );
        return;
      }
      for (const { conversation: imported, turns, skipped } of outcomes) {
        const title = sanitizeTerminalText(imported.title ?? "untitled");
        const what = `${imported.sourceId} as ${imported.id} (${title}, ${turns} turn${turns === 1 ? "" : "s"})`;
        context.out(
          skipped
            ? `Skipped ${what}: it already exists`
            : `Imported ${what}${imported.archived ? ", archived" : ""}`,
        );
      }
      context.out(
        summarize(
          outcomes.map((outcome) => ({ skipped: outcome.skipped, archived: outcome.conversation.archived })),
        ),
      );
    });
}

/** One line per session with what was left out, then the totals. */
async function reportAgentImport(
  context: CliContext,
  batch: AgentImportBatch,
  outcomes: readonly AgentImportOutcome[],
): Promise<void> {
  const { agentImportJson, counted, describeAgentImport, byKind } = await import(
    "../../render/agent-import.js"
  );
  const { AGENT_NAMES } = await import("../../../core/interop/agent-session.js");
  const { sanitizeTerminalText } = await import("../../../core/present/sanitize.js");
  const agent = AGENT_NAMES[batch.agent];
  if (context.json) {
    context.outJson(
      outcomes.map((outcome) => ({
        source: outcome.sourceId,
        file: outcome.file,
        id: outcome.id,
        title: outcome.title ?? null,
        turns: outcome.turns,
        events: outcome.events,
        skipped: outcome.skipped,
        import: agentImportJson(outcome.summary),
      })),
    );
    return;
  }
  for (const outcome of outcomes) {
    const title = sanitizeTerminalText(outcome.title ?? "untitled");
    const what = `${agent} session ${outcome.file} as ${outcome.id} (${title}, ${counted(outcome.turns, "turn")})`;
    if (outcome.skipped) {
      context.out(`Skipped ${what}: it already exists`);
      continue;
    }
    context.out(`Imported ${what}`);
    context.out(`  ${describeAgentImport(outcome.summary)}`);
    const unknown = outcome.summary.unknown;
    if (Object.keys(unknown).length > 0) {
      context.warn(`${outcome.file}: records of types cxc does not know were skipped (${byKind(unknown)})`);
    }
  }
  if (batch.subagentFiles > 0) {
    context.out(`Left out ${counted(batch.subagentFiles, "subagent transcript")} (side chains).`);
  }
  context.out(summarize(outcomes.map((outcome) => ({ skipped: outcome.skipped, archived: false }))));
}

function summarize(outcomes: readonly { skipped: boolean; archived: boolean }[]): string {
  const imported = outcomes.filter((outcome) => !outcome.skipped);
  const archived = imported.filter((outcome) => outcome.archived).length;
  const skipped = outcomes.length - imported.length;
  const noun = imported.length === 1 ? "conversation" : "conversations";
  return (
    `Imported ${imported.length} ${noun}` +
    (archived > 0 ? ` (${archived} archived)` : "") +
    (skipped > 0 ? `; skipped ${skipped} that already existed` : "") +
    "."
  );
}
