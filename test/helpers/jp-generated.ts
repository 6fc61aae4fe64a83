/**
 * Small jp conversations made on the spot, for tests that need many of them (races, kills): a jp
 * `conversations` directory of `count` three-event conversations and one archived one.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes the conversations into `directory` (created); returns how many there are in all. */
export function writeJpConversations(directory: string, count: number): number {
  for (let index = 0; index < count; index++) {
    const conversation = join(directory, `${17648402467 + index}-c${index}`);
    mkdirSync(conversation, { recursive: true });
    writeFileSync(
      join(conversation, "events.json"),
      JSON.stringify([
        { type: "turn_start", timestamp: "2025-12-04 09:28:23.2" },
        { type: "chat_request", timestamp: "2025-12-04 09:28:23.3", content: `question ${index}` },
        { type: "chat_response", timestamp: "2025-12-04 09:28:24.0", message: `answer ${index}` },
      ]),
    );
  }
  const archived = join(directory, ".archive", "17648403467-old");
  mkdirSync(archived, { recursive: true });
  writeFileSync(
    join(archived, "events.json"),
    JSON.stringify([{ type: "turn_start", timestamp: "2025-12-04 09:28:23.2" }]),
  );
  return count + 1;
}
