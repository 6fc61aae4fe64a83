/**
 * Loads fixtures/sample/coding-session.jsonl for tests: the header line, then every event parsed
 * with the real schema (a malformed line fails loudly, naming its line number).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ConversationEvent, parseEvent } from "../../src/core/conversation/events.js";
import { groupTurns, type Turn } from "../../src/core/conversation/turns.js";

/** The project root, resolved from this file so tests work from any working directory. */
export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const SAMPLE_LOG_PATH = `${PROJECT_ROOT}fixtures/sample/coding-session.jsonl`;
export const SAMPLE_META_PATH = `${PROJECT_ROOT}fixtures/sample/meta.json`;

/** The sample's first line. */
export interface SampleHeader {
  cxc: string;
  version: number;
  id: string;
  created_at: string;
}

/** The sample conversation: its header, events, and turns (from core/conversation/turns.ts). */
export interface SampleConversation {
  header: SampleHeader;
  events: ConversationEvent[];
  turns: Turn[];
  /** The raw text of the log, for size checks. */
  text: string;
}

let cached: SampleConversation | undefined;

export function loadSample(): SampleConversation {
  if (cached) return cached;
  const text = readFileSync(SAMPLE_LOG_PATH, "utf8");
  const lines = text.split("\n").filter((line) => line.length > 0);
  const header = JSON.parse(lines[0]!) as SampleHeader;
  const events = lines.slice(1).map((line, position) => {
    const parsed = parseEvent(JSON.parse(line));
    if (!parsed.ok) throw new Error(`sample line ${position + 2}: ${parsed.error}`);
    return parsed.event;
  });
  cached = { header, events, turns: groupTurns(events), text };
  return cached;
}
