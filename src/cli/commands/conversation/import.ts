/**
 * `cxc conversation import PATH|- [--from jp|openai|anthropic|cxc] [--skip-existing] [--title T]`:
 * brings conversations in from a jp workspace or conversation directory, an OpenAI or Anthropic
 * request body or messages array, or a cxc export. Everything is read and validated before the
 * first conversation is created, so a bad file leaves the store untouched.
 */
import { Option, type Command } from "commander";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";

interface ImportOptions {
  from?: "jp" | "openai" | "anthropic" | "cxc";
  skipExisting?: boolean;
  title?: string;
}

export function registerImport(conversation: Command): void {
  conversation
    .command("import")
    .description("import conversations from jp, OpenAI or Anthropic messages, or a cxc export")
    .argument("<PATH>", "a file or directory, or - for standard input")
    .addOption(
      new Option("--from <FORMAT>", "the format (detected when omitted)").choices([
        "jp",
        "openai",
        "anthropic",
        "cxc",
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
      const { jpToolsWarning, readImport, saveImported } = await loadInterop();
      const { sanitizeTerminalText } = await import("../../../core/sanitize.js");
      if (path === "-" && context.stdinIsTerminal) {
        throw new CxcError("usage", "`import -` reads standard input, which is a terminal", {
          hint: "pipe a file into it (cxc conversation import - < request.json) or pass its path",
        });
      }
      const stdinText = path === "-" ? await context.readStdin() : undefined;
      const batch = readImport({
        path,
        ...(stdinText === undefined ? {} : { stdinText }),
        ...(options.from ? { from: options.from } : {}),
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
      context.out(summarize(outcomes));
    });
}

function summarize(outcomes: readonly { skipped: boolean; conversation: { archived: boolean } }[]): string {
  const imported = outcomes.filter((outcome) => !outcome.skipped);
  const archived = imported.filter((outcome) => outcome.conversation.archived).length;
  const skipped = outcomes.length - imported.length;
  const noun = imported.length === 1 ? "conversation" : "conversations";
  return (
    `Imported ${imported.length} ${noun}` +
    (archived > 0 ? ` (${archived} archived)` : "") +
    (skipped > 0 ? `; skipped ${skipped} that already existed` : "") +
    "."
  );
}
