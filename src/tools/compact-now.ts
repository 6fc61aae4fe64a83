/**
 * The built-in `compact_now` tool: the assistant schedules a compaction for the end of the current
 * turn, with a note that becomes the compaction's note (what it is doing and what the summary must
 * keep).
 *
 * It never compacts inside the tool: compacting here would change the context under the loop that
 * is running the call. The successful call, stored in the conversation like any other, is the
 * schedule; at the end of the turn the automatic-compaction hook (src/compaction/automatic.ts) finds
 * it and records the compaction, which activates when the next turn starts. A missing or empty note
 * is a tool error and schedules nothing; a note longer than a compaction's is cut, as the `compact`
 * tool cuts its notes, and the result says so.
 */
import * as z from "zod";
import { COMPACT_NOW_NAME } from "../compaction/core/advisor/advisor.js";
import { cutNote, NOTE_MAX_LENGTH } from "../compaction/core/tool/compact-tool.js";
import { zodArguments } from "./arguments.js";
import { builtinTool, type Tool, type ToolOutcome } from "./tool.js";

/** The tool's name (the end-of-turn hook looks for successful calls of it). */
export { COMPACT_NOW_NAME };

/** The longest note kept (a compaction's `note` holds at most 200 characters); longer ones are cut. */
export const COMPACT_NOW_NOTE_MAX = NOTE_MAX_LENGTH;

const DESCRIPTION = [
  "Schedule a compaction of this conversation for the end of the current turn. Earlier turns are",
  "summarized; the work that is still live stays verbatim. Nothing changes while you finish this",
  "turn: finish your reply, and the compaction runs when the turn ends.",
].join("\n");

/** The arguments: a note, checked by the schema the model is shown (arguments.ts). */
const compactNowArgumentsSchema = () =>
  z.strictObject({
    note: z
      .string({ error: "compact_now needs a non-empty `note` string; nothing was scheduled." })
      .refine((note) => note.trim() !== "", {
        error: "compact_now needs a non-empty `note` string; nothing was scheduled.",
      })
      .describe(
        `What you are doing and what the summary must keep (at most ${COMPACT_NOW_NOTE_MAX} characters; longer notes are cut).`,
      ),
  });

type CompactNowArguments = z.output<ReturnType<typeof compactNowArgumentsSchema>>;

/** The tool's arguments (their JSON Schema, and the check of a call; a problem's own message). */
export const COMPACT_NOW_ARGUMENTS = zodArguments(compactNowArgumentsSchema);

function scheduled(note: string, cut: boolean): ToolOutcome {
  const result = {
    scheduled: true,
    when: "at the end of this turn",
    note,
    ...(cut ? { note_cut: `the note was cut to ${COMPACT_NOW_NOTE_MAX} characters` } : {}),
    next_step: "Finish your reply. Compaction runs when the turn ends, then continue.",
  };
  return { content: JSON.stringify(result, null, 2), isError: false };
}

/** Builds the `compact_now` tool. */
export function createCompactNowTool(): Tool<CompactNowArguments> {
  return builtinTool({
    name: COMPACT_NOW_NAME,
    description: DESCRIPTION,
    arguments: COMPACT_NOW_ARGUMENTS,
    // Offered only when named; it merely schedules, so once enabled it runs without asking.
    defaults: { enable: "explicit", run: "unattended" },
    async run({ note: given }): Promise<ToolOutcome> {
      const note = cutNote(given);
      return scheduled(note, note !== given.trim());
    },
  });
}
