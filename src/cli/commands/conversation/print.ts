/**
 * `cxc conversation print [ID] [--first N|--last N|--turn A..B] [--style STYLE]`: the raw
 * transcript, turns numbered from 1, in text (sanitized) or JSON (stored event shapes).
 * `--compacted` prints the projected view instead (headers in raw turn numbers), and `--format
 * anthropic|openai|responses|gemini` prints the projected view as a ready request body
 * (src/cli/compaction/projected-print.ts).
 *
 * Text follows `--style` (jp's presets; by default long tool output is cut to its first lines),
 * is coloured and paged when stdout is a terminal (src/cli/terminal/pager.ts), and plain in a
 * pipe. JSON and request bodies are never cut, coloured or paged.
 *
 * The handler is three steps so other views slot in: select turns (raw numbers, before any
 * projection), build `TranscriptTurn` blocks (`buildRawTranscript` here; a projected view builds
 * its own blocks with headers like `turns 2..5 (summary)`), then render them.
 */
import { type Command, Option } from "commander";
import { CliContext } from "../../context.js";
import type { PrintStyle, TranscriptTurn } from "../../render/transcript.js";
import type { TurnSelectionOptions } from "../../render/turn-selection.js";
import { parseTurnSelection, resolveTurnSelection } from "../../render/turn-selection.js";
import {
  buildRawTranscript,
  ANSI_COLORS,
  renderTranscriptText,
  transcriptToJson,
} from "../../render/transcript.js";
import { countTurns } from "../../../core/conversation/turns.js";
import { ID_ARGUMENT, loadConversation } from "../../targets.js";
import {
  selectProjectedTurns,
  buildRequestBody,
  buildProjectedTranscript,
  printedRecall,
} from "../../compaction/projected-print.js";
import { loadConfig } from "../../config.js";
import { recordedSettings } from "../../../core/conversation/settings.js";
import { pinnedMessages } from "../../../core/conversation/pins.js";
import { writePaged } from "../../terminal/pager.js";
import { wrapAtWords } from "../../terminal/wrap.js";

interface PrintOptions extends TurnSelectionOptions {
  readonly compacted?: boolean;
  readonly style?: Exclude<PrintStyle, "default">;
  readonly pager: boolean;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("print a conversation's transcript (default: the active one)")
    .argument("[ID]", ID_ARGUMENT)
    .option("--first <N>", "only the first N turns")
    .option("--last <N>", "only the last N turns")
    .option("--turn <N|A..B>", "only turn N, or turns A to B (1-based, inclusive; A.. and ..B are open)")
    .option("--compacted", "print what the model sees (compactions applied), headed by raw turn numbers")
    .addOption(
      new Option(
        "-s, --style <STYLE>",
        "full: everything, tool output uncut; brief: messages and tool names; chat: messages; user: your messages (default: everything, long tool output cut)",
      ).choices(["full", "chat", "user", "brief"]),
    )
    .option("--no-pager", "never page (default: page at a terminal when the text is taller than the screen)")
    .action(async (idArgument: string | undefined, options: PrintOptions, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format(["text", "json", "anthropic", "openai", "responses", "gemini"]);
      // Parse before touching the store, so a bad flag is reported even without a conversation.
      const selection = parseTurnSelection(options);
      const { id, conversation } = await loadConversation(context, idArgument);
      const turnCount = countTurns(conversation.events);
      const resolved = resolveTurnSelection(selection, conversation.events);
      if (format === "anthropic" || format === "openai" || format === "responses" || format === "gemini") {
        // The projected view as a ready request body (compactions always applied).
        const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
        const projected = selectProjectedTurns(conversation.events, resolved);
        const recorded = recordedSettings(conversation.events);
        const recall = printedRecall(conversation.events, config.values);
        context.outJson(await buildRequestBody(projected, format, config.values, recorded, recall));
        return;
      }
      let recallIndex: readonly { reference: string; description: string }[] | undefined;
      let turns: TranscriptTurn[];
      if (options.compacted) {
        const pinned = pinnedMessages(conversation.events).ids;
        turns = buildProjectedTranscript(selectProjectedTurns(conversation.events, resolved), pinned);
        if (format === "json") {
          // The recall index as `cxc q` sends it, beside the turns (never as an event of one).
          const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
          const recall = printedRecall(conversation.events, config.values);
          if (recall !== undefined) recallIndex = recall.placement?.lines ?? [];
        }
      } else turns = buildRawTranscript(conversation.events, resolved);
      await writeTranscript(
        context,
        format,
        {
          id,
          title: conversation.meta.title ?? null,
          turnCount,
          turns,
          ...(recallIndex === undefined ? {} : { recallIndex }),
        },
        { style: options.style ?? "default", pager: options.pager },
      );
    });
}

/** What `writeTranscript` prints. */
export interface PrintableTranscript {
  readonly id: string;
  readonly title: string | null;
  readonly turnCount: number;
  readonly turns: readonly TranscriptTurn[];
  /** `print --compacted --format json`: the recall index's lines (docs/recall.md). */
  readonly recallIndex?: readonly { readonly reference: string; readonly description: string }[];
}

/**
 * Writes a transcript in the chosen format: sanitized text in the given style (coloured and paged
 * at a terminal), or one JSON document (always whole).
 */
export async function writeTranscript(
  context: CliContext,
  format: "text" | "json",
  transcript: PrintableTranscript,
  options: { readonly style: PrintStyle; readonly pager: boolean },
): Promise<void> {
  if (format === "json") {
    context.outJson({
      id: transcript.id,
      title: transcript.title,
      turn_count: transcript.turnCount,
      turns: transcriptToJson(transcript.turns),
      ...(transcript.recallIndex === undefined ? {} : { recall_index: transcript.recallIndex }),
    });
    return;
  }
  if (transcript.turns.length === 0) {
    context.info(transcript.turnCount === 0 ? "The conversation has no turns yet." : "No turns selected.");
    return;
  }
  // Already sanitized by the renderer; headers and colours are cxc's own.
  const text = renderTranscriptText(transcript.turns, {
    style: options.style,
    ...(context.color ? { colors: ANSI_COLORS } : {}),
  });
  // At a terminal, lines wrap at words (the terminal itself would cut words in two); in a pipe the
  // text is left as it is.
  const shown = process.stdout.isTTY ? wrapAtWords(text, process.stdout.columns ?? 80) : text;
  await writePaged(shown, { stdout: process.stdout, env: context.env, disabled: !options.pager });
}
