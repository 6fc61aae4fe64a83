/**
 * `cxc conversation import PATH|- [--from jp|openai|anthropic|cxc|claude-code|pi|codex|gemini|opencode]
 * [--skip-existing] [--title T] [--update]`: brings conversations in from a jp workspace or conversation
 * directory, an OpenAI or Anthropic request body or messages array, a cxc export, or the session
 * files of the coding agents (one file or a project's folder, streamed). Everything is read and validated before the first
 * conversation is created, so a bad file leaves the store untouched.
 *
 * Importing one conversation makes it the active one, as `new` does, and says so; importing
 * several makes none active and names the one to `use` (the one updated last).
 *
 * `--update` brings an agent's session that grew back onto the conversation it came from (imported
 * from it, or exported to it and resumed), appending only what is new (src/store/agent-update.ts);
 * for opencode's database, every session of it a conversation came from.
 */
import { Option, type Command } from "commander";
import { AGENT_FORMATS, type AgentFormat } from "../../../core/interop/agents.js";
import { CxcError } from "../../../errors.js";
import type { AgentImportBatch, AgentImportOutcome } from "../../../store/index.js";
import { CliContext } from "../../context.js";
import { loadInterop, newConversationId, newEventId, timestampNow } from "../../../store/index.js";
import { sanitizeTerminalText } from "../../../core/present/sanitize.js";
import { agentImportJson, counted, describeAgentImport } from "../../render/agent-import.js";
import { describeUnknown } from "../../../core/interop/agent-versions.js";
import { AGENT_NAMES } from "../../../core/interop/agent-session.js";
import { formatCount } from "../../../core/present/labels.js";

/** The formats of one document or directory (the agents' sessions are the others). */
const DOCUMENT_FORMATS = ["jp", "openai", "anthropic", "cxc"] as const;

interface ImportOptions {
  from?: (typeof DOCUMENT_FORMATS)[number] | AgentFormat;
  skipExisting?: boolean;
  title?: string;
  update?: boolean;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description(
      "import conversations from jp, OpenAI or Anthropic messages, a cxc export, or Claude Code, pi, Codex, Gemini CLI and opencode sessions",
    )
    .argument("<PATH>", "a file or directory, or - for standard input")
    .addOption(
      new Option("--from <FORMAT>", "the format (detected when omitted)").choices([
        ...DOCUMENT_FORMATS,
        ...AGENT_FORMATS,
      ]),
    )
    .option("--skip-existing", "leave conversations that were imported before, import the rest")
    .option("--title <TITLE>", "a title for a conversation imported from a messages array")
    .option(
      "--update",
      "an agent's session that grew: append what is new to the conversation it came from (imported from it, or exported to it and resumed)",
    )
    .action(async (path: string, options: ImportOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { detectAgentPath, jpToolsWarning, readAgentImport, readImport, saveAgentImport, saveImported } =
        await loadInterop();
      const from = options.from;
      const agent = isAgent(from)
        ? from
        : from === undefined && path !== "-"
          ? detectAgentPath(path)
          : undefined;
      if (options.update === true) {
        if (agent === undefined) {
          throw new CxcError(
            "usage",
            "--update brings back a Claude Code, pi, Codex, Gemini CLI or opencode session; this is not one",
            {
              hint: "name the agent's session file (opencode: its database), or --from claude-code|pi|codex|gemini|opencode",
            },
          );
        }
        for (const [flag, given] of [
          ["--skip-existing", options.skipExisting],
          ["--title", options.title],
        ] as const) {
          if (given !== undefined && given !== false)
            throw new CxcError("usage", `--update cannot be used with ${flag}`);
        }
        if (path === "-") throw new CxcError("usage", "--update reads a session file, not standard input");
        await reportUpdate(context, await loadInterop(), path, agent);
        return;
      }
      if (agent !== undefined) {
        if (path === "-") {
          throw new CxcError("usage", `--from ${agent} reads a session file or folder, not standard input`, {
            hint: "pass the session file's path, or the folder that holds the sessions",
          });
        }
        const batch = await readAgentImport(path, agent, context.env, { stageInto: context.store });
        const outcomes = await saveAgentImport(context.store, batch, {
          skipExisting: options.skipExisting ?? false,
        });
        for (const warning of outcomes.flatMap((outcome) => outcome.warnings)) context.warn(warning);
        const active = activateImported(
          context,
          outcomes
            .filter((outcome) => !outcome.skipped)
            .map((outcome) => ({ id: outcome.id, archived: false })),
        );
        await reportAgentImport(context, batch, outcomes, active);
        return;
      }
      const documentFormat = isAgent(from) ? undefined : from;
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
      const active = activateImported(
        context,
        outcomes
          .filter((outcome) => !outcome.skipped)
          .map(({ conversation: imported }) => ({ id: imported.id, archived: imported.archived })),
      );
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
            active: imported.id === active.id,
          })),
        );
        return;
      }
      for (const { conversation: imported, turns, skipped } of outcomes) {
        const title = sanitizeTerminalText(imported.title ?? "untitled");
        // A cxc export keeps its id: `Imported 01abc (…)`, not `Imported 01abc as 01abc`.
        const named =
          imported.sourceId === imported.id ? imported.id : `${imported.sourceId} as ${imported.id}`;
        const what = `${named} (${title}, ${turns} turn${turns === 1 ? "" : "s"})`;
        context.out(
          skipped
            ? `Skipped ${what}: it already exists`
            : `Imported ${what}${imported.archived ? ", archived" : ""}`,
        );
      }
      context.out(
        summarize(
          outcomes.map((outcome) => ({ skipped: outcome.skipped, archived: outcome.conversation.archived })),
          active,
        ),
      );
      sayWhichToUse(context, active);
    });
}

function isAgent(format: string | undefined): format is AgentFormat {
  return (AGENT_FORMATS as readonly string[]).includes(format ?? "");
}

/** What an import did to the active conversation. */
interface Activation {
  /** The conversation made active (the only one imported). */
  readonly id: string | undefined;
  /** With several imported, none made active: the one to suggest (updated last). */
  readonly suggested: string | undefined;
}

/**
 * Makes the one conversation imported (not archived) the active one; with several, leaves the
 * active conversation alone and picks the one updated last to suggest.
 */
function activateImported(
  context: CliContext,
  imported: readonly { id: string; archived: boolean }[],
): Activation {
  const live = imported.filter((conversation) => !conversation.archived);
  if (imported.length === 1 && live.length === 1) {
    context.store.setActive(live[0]!.id);
    return { id: live[0]!.id, suggested: undefined };
  }
  if (live.length === 0) return { id: undefined, suggested: undefined };
  const updated = (id: string): number => Date.parse(context.store.readMeta(id).updated_at) || 0;
  const latest = live.reduce((best, conversation) =>
    updated(conversation.id) > updated(best.id) ? conversation : best,
  );
  return { id: undefined, suggested: latest.id };
}

/** After importing several: none is active, here is how to pick one. */
function sayWhichToUse(context: CliContext, active: Activation): void {
  if (active.suggested === undefined || context.json) return;
  context.hint(
    `none of them was made active: \`cxc conversation use ${active.suggested}\` takes the one updated last, ` +
      "`cxc conversation use ?` picks one from a list",
  );
}

/** One line per session with what was left out, then the totals. */
async function reportAgentImport(
  context: CliContext,
  batch: AgentImportBatch,
  outcomes: readonly AgentImportOutcome[],
  active: Activation,
): Promise<void> {
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
        active: outcome.id === active.id,
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
    // What the reader did not know, named with the version that wrote it (agent-versions.ts).
    const unknown = describeUnknown(outcome.summary);
    if (unknown !== undefined) context.warn(`${outcome.file}: ${unknown}`);
  }
  if (batch.subagentFiles > 0) {
    context.out(`Left out ${counted(batch.subagentFiles, "subagent transcript")} (side chains).`);
  }
  if (batch.emptyFiles > 0) {
    const unit = batch.agent === "opencode" ? "session" : "file";
    context.out(`Left out ${counted(batch.emptyFiles, unit)} without a single prompt.`);
  }
  if (batch.duplicateFiles > 0) {
    context.out(
      `Left out ${counted(batch.duplicateFiles, "file")} holding a session another file holds too (the later file was read).`,
    );
  }
  context.out(
    summarize(
      outcomes.map((outcome) => ({ skipped: outcome.skipped, archived: false })),
      active,
    ),
  );
  sayWhichToUse(context, active);
}

function summarize(outcomes: readonly { skipped: boolean; archived: boolean }[], active: Activation): string {
  const imported = outcomes.filter((outcome) => !outcome.skipped);
  const archived = imported.filter((outcome) => outcome.archived).length;
  const skipped = outcomes.length - imported.length;
  const noun = imported.length === 1 ? "conversation" : "conversations";
  return (
    `Imported ${imported.length} ${noun}` +
    (archived > 0 ? ` (${archived} archived)` : "") +
    (skipped > 0 ? `; skipped ${skipped} that already existed` : "") +
    (active.id === undefined ? "." : `; ${active.id} is now the active conversation.`)
  );
}

/** `--update`: appends, then says what came in (or that nothing did). */
async function reportUpdate(
  context: CliContext,
  interop: Awaited<ReturnType<typeof import("../../../store/index.js")["loadInterop"]>>,
  path: string,
  agent: AgentFormat,
): Promise<void> {
  type Outcome = Awaited<ReturnType<typeof interop.updateFromAgentSession>>;
  const asJson = (outcome: Outcome) => ({
    id: outcome.id,
    file: outcome.file,
    via: outcome.via,
    appended_events: outcome.appended,
    usage_backfilled: outcome.usage,
    new_turns: outcome.newTurns,
    turns: outcome.turns,
  });
  const line = (outcome: Outcome): string => {
    const via = outcome.via === "import" ? "imported from it" : "exported to it";
    // Usage a session imported before cxc kept it did not bring (docs/context.md).
    const usage =
      outcome.usage === 0
        ? ""
        : ` The usage of ${formatCount(outcome.usage, "request")} it held came in too: its context figure is the agent's own count.`;
    if (outcome.appended === 0)
      return `Nothing new in ${outcome.file}: ${outcome.id} (${via}) holds all of it.${usage}`;
    const turns =
      outcome.newTurns === 0
        ? "more of its last turn"
        : `${formatCount(outcome.newTurns, "new turn")}, now ${formatCount(outcome.turns, "turn")}`;
    return `Updated ${outcome.id} (${via}) from ${outcome.file}: ${formatCount(outcome.appended, "event")} appended (${turns}).${usage}`;
  };
  if (agent === "opencode") {
    // opencode keeps every session in one database: each one a conversation came from.
    const result = await interop.updateFromOpencode(context.store, path, context.env);
    for (const warning of result.sessions.flatMap((outcome) => outcome.warnings)) context.warn(warning);
    if (context.json) {
      context.outJson({ sessions: result.sessions.map(asJson), not_imported: result.notImported });
      return;
    }
    for (const outcome of result.sessions) context.out(line(outcome));
    if (result.notImported > 0) {
      context.info(
        `${formatCount(result.notImported, "session")} of ${path} never imported left as ${result.notImported === 1 ? "it is" : "they are"} (\`cxc conversation import ${path} --skip-existing\` brings them in).`,
      );
    }
    return;
  }
  const outcome = await interop.updateFromAgentSession(context.store, path, agent, context.env);
  for (const warning of outcome.warnings) context.warn(warning);
  if (context.json) {
    context.outJson(asJson(outcome));
    return;
  }
  context.out(line(outcome));
}
