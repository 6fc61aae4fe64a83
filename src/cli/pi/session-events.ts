/**
 * A pi session as cxc events, for the advisor and the summary check inside pi: the header and the
 * current branch (what `ctx.sessionManager` holds) converted exactly as `cxc conversation import`
 * converts a pi session file (src/core/interop/pi.ts), and the pi entry that opens each cxc turn,
 * so that a turn the advisor picks can become pi's `firstKeptEntryId`.
 */
import type { ConversationEvent } from "../../core/conversation/events.js";
import { agentTimestamp } from "../../core/interop/agent-session.js";
import { describeUnknown } from "../../core/interop/agent-versions.js";
import { importPiSession } from "../../core/interop/pi.js";
import { groupTurns, type Turn } from "../../core/conversation/turns.js";
import type { PiEntry } from "./pi-api.js";

/** The session as cxc sees it. */
export interface PiSessionView {
  readonly events: readonly ConversationEvent[];
  readonly turns: readonly Turn[];
  /** The id of the pi entry that opens each turn (by turn index), where one was found. */
  readonly turnEntries: readonly (string | undefined)[];
  /** What the conversion did not know (a newer pi's entries or blocks), as one line; agent-versions.ts. */
  readonly unknown?: string;
}

/** Entries that open a cxc turn when converted (a prompt, a bash run, a branch summary, …). */
function opensTurn(entry: PiEntry): boolean {
  if (entry.type === "branch_summary" || entry.type === "compaction") return true;
  if (entry.type !== "message") return false;
  const role = (entry.message as { role?: unknown } | undefined)?.role;
  return role === "user" || role === "bashExecution" || role === "branchSummary";
}

function timeOf(entry: PiEntry): string | undefined {
  const message = entry.message as { timestamp?: unknown } | undefined;
  return agentTimestamp(message?.timestamp) ?? agentTimestamp(entry.timestamp);
}

/** Converts the header and branch; throws when pi's session is not one cxc can read. */
export function piSessionView(
  header: Record<string, unknown> | null,
  branch: readonly PiEntry[],
): PiSessionView {
  const lines = [header ?? { type: "session", version: 3, id: "pi-session" }, ...branch].map((record) =>
    JSON.stringify(record),
  );
  const imported = importPiSession(`${lines.join("\n")}\n`, "pi session");
  if (!imported.ok) throw new Error(imported.message);
  const events = imported.value.conversation.events;
  const turns = groupTurns(events);
  const turnEntries: (string | undefined)[] = [];
  let next = 0;
  for (const turn of turns) {
    const first = turn.events.find((event) => event.type !== "turn_start") ?? turn.events[0];
    let found: string | undefined;
    for (let index = next; index < branch.length; index++) {
      const entry = branch[index]!;
      if (opensTurn(entry) && timeOf(entry) === first?.ts) {
        found = entry.id;
        next = index + 1;
        break;
      }
    }
    turnEntries.push(found);
  }
  const unknown = describeUnknown(imported.value.summary);
  return { events, turns, turnEntries, ...(unknown === undefined ? {} : { unknown }) };
}

/** The cxc turn holding pi entry `id` (the last turn that opened at or before it), or undefined. */
export function turnOfEntry(view: PiSessionView, branch: readonly PiEntry[], id: string): number | undefined {
  const position = branch.findIndex((entry) => entry.id === id);
  if (position < 0) return undefined;
  const starts = new Map(branch.map((entry, index) => [entry.id, index]));
  let turn: number | undefined;
  view.turnEntries.forEach((entryId, index) => {
    const at = entryId === undefined ? undefined : starts.get(entryId);
    if (at !== undefined && at <= position) turn = view.turns[index]?.index ?? index;
  });
  return turn;
}
