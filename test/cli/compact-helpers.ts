/**
 * Shared setup for the `compact`, `stats` and `print --compacted` end-to-end tests: the bundled
 * sample conversation (20 turns) written through the real store, and readers for what the log
 * holds afterwards.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ConversationEvent, parseEvent } from "../../src/core/conversation/events.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { loadSample } from "../helpers/sample.js";
import { seedConversation } from "./conversation-helpers.js";

/** The id the sample is stored under. */
export const SAMPLE_ID = "sample000001";

/** A temp home holding the sample as the active conversation. */
export async function homeWithSample(events?: readonly ConversationEvent[]): Promise<TempHome> {
  const home = makeTempHome();
  await seedConversation(home, {
    id: SAMPLE_ID,
    title: "Add a --since filter to logcat",
    events: events ?? loadSample().events,
    active: true,
  });
  return home;
}

/** The raw bytes of a conversation's log, to assert that a command changed nothing. */
export function logBytes(home: TempHome, id = SAMPLE_ID): string {
  return readFileSync(join(home.home, "conversations", id, "events.jsonl"), "utf8");
}

/** The events of a conversation's log (header skipped). */
export function readEvents(home: TempHome, id = SAMPLE_ID): ConversationEvent[] {
  return logBytes(home, id)
    .split("\n")
    .slice(1)
    .filter((line) => line.length > 0)
    .map((line) => {
      const parsed = parseEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.event;
    });
}

/** The `compaction` events of a conversation's log, in order. */
export function compactionsOf(home: TempHome, id = SAMPLE_ID) {
  return readEvents(home, id).flatMap((event) => (event.type === "compaction" ? [event] : []));
}
