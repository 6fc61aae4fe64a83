#!/usr/bin/env node
/**
 * Derives fixtures/agents/codex-encrypted/session.jsonl from the real Codex session in
 * fixtures/agents/codex/session.jsonl: the same rollout, with its `compacted` record in the shape
 * Codex writes after OpenAI's remote compaction (`message` empty, the replacement history ending
 * in an encrypted `compaction` item instead of Codex's summary message). The fake provider cannot
 * encrypt, so the item's content is a fixed opaque string; what the tests check is that it goes
 * through cxc byte for byte and that the real Codex resumes the result.
 *
 * Run: node scripts/make-codex-encrypted-fixture.mjs
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "fixtures", "agents", "codex", "session.jsonl");
const target = join(root, "fixtures", "agents", "codex-encrypted", "session.jsonl");
export const ENCRYPTED_CONTENT =
  "gAAAAABpY3hjLWZpeHR1cmUtZW5jcnlwdGVkLWNvbXBhY3Rpb24tb25seS1vcGVuYWktY2FuLXJlYWQtdGhpcw==";

const lines = readFileSync(source, "utf8").split("\n");
let changed = 0;
const out = lines.map((line) => {
  if (line === "") return line;
  const record = JSON.parse(line);
  if (record.type !== "compacted") return line;
  const history = record.payload.replacement_history.map((item) =>
    item.type === "message" &&
    item.role === "user" &&
    item.internal_chat_message_metadata_passthrough?.content_item_kinds?.includes("compaction.summary")
      ? { type: "compaction", encrypted_content: ENCRYPTED_CONTENT }
      : item,
  );
  changed += 1;
  return JSON.stringify({
    ...record,
    payload: { ...record.payload, message: "", replacement_history: history },
  });
});
if (changed !== 1) throw new Error(`expected one compacted record, found ${changed}`);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, out.join("\n"));
console.log(`wrote ${target}`);

// The same session compacted inside its second turn, as Codex compacts mid-turn: after the turn's
// tool result and before its answer, the replacement history holding the first prompt, that
// turn's prompt (Codex keeps the user's messages, the current one included), then the item.
const midTurnTarget = join(dirname(target), "mid-turn.jsonl");
const records = out.filter((line) => line !== "").map((line) => JSON.parse(line));
const compacted = records.find((record) => record.type === "compacted");
const prompt = (text) =>
  records.find(
    (record) =>
      record.type === "response_item" &&
      record.payload.role === "user" &&
      JSON.stringify(record.payload.content).includes(text),
  ).payload;
const toolResult = records.find(
  (record) =>
    record.type === "response_item" &&
    record.payload.type === "function_call_output" &&
    record.payload.call_id === "call_fixture_changelog",
);
const moved = {
  ...compacted,
  timestamp: toolResult.timestamp,
  payload: {
    message: "",
    replacement_history: [
      prompt("what do the notes say?"),
      prompt("Is there a changelog?"),
      { type: "compaction", encrypted_content: ENCRYPTED_CONTENT },
    ],
  },
};
// The summarizer's answer, just before the original record, goes with it.
const kept = records.filter((record) => record !== compacted && !isSummarizerAnswer(record));
kept.splice(kept.indexOf(toolResult) + 1, 0, moved);
writeFileSync(midTurnTarget, kept.map((record) => JSON.stringify(record)).join("\n"));
console.log(`wrote ${midTurnTarget}`);

function isSummarizerAnswer(record) {
  return (
    record.type === "response_item" &&
    record.payload.role === "assistant" &&
    JSON.stringify(record.payload.content).includes("The user listed the files")
  );
}
