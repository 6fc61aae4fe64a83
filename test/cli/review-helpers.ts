/**
 * Shared setup for the compaction review tests (seed D66): the sample conversation (20 turns) as
 * the active source, the loopback fake provider as the assistant model, and readers for reviews.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ConversationEvent, parseEvent } from "../../src/core/conversation/events.js";
import type { TempHome } from "../helpers/cli.js";
import type { FakeMessageReply, FakeProvider } from "../helpers/fake-provider.js";
import { readEvents } from "./compact-helpers.js";
import { reviewSourceOf } from "./conversation-helpers.js";

export { homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";

/** The assistant model the tests use (served by the fake provider). */
export const ASSISTANT_MODEL = "anthropic/claude-sonnet-4-6";

/** Environment pointing the Anthropic SDK at the fake provider. */
export function providerEnv(provider: FakeProvider): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "test-key-anthropic",
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    CXC_ASSISTANT__MODEL__ID: ASSISTANT_MODEL,
  };
}

/** The active conversation of the default session, if any. */
export function activeOf(home: TempHome): string | undefined {
  try {
    const text = readFileSync(join(home.home, "sessions", "default.json"), "utf8");
    return (JSON.parse(text) as { active?: string }).active;
  } catch {
    return undefined;
  }
}

/** Ids of the live (or archived) conversations. */
export function conversationIds(home: TempHome, archived = false): string[] {
  try {
    return readdirSync(join(home.home, archived ? "archive" : "conversations")).sort();
  } catch {
    return [];
  }
}

/** The events of a live or archived conversation. */
export function eventsOf(home: TempHome, id: string, archived = false): ConversationEvent[] {
  if (!archived) return readEvents(home, id);
  return readFileSync(join(home.home, "archive", id, "events.jsonl"), "utf8")
    .split("\n")
    .slice(1)
    .filter((line) => line.length > 0)
    .map((line) => {
      const parsed = parseEvent(JSON.parse(line));
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.event;
    });
}

/** The review conversation of a source: the live one whose review record names it. */
export function reviewOf(home: TempHome, sourceId: string): string | undefined {
  return conversationIds(home).find((id) => reviewSourceOf(home, id) === sourceId);
}

/** A reply calling propose_compaction, then (for the next cycle) the model's closing words. */
export function proposalRound(
  argumentsObject: Record<string, unknown>,
  closing = "Recorded.",
  callId = `toolu_${Math.abs(JSON.stringify(argumentsObject).length)}_${closing.length}`,
): FakeMessageReply[] {
  return [
    { blocks: [{ type: "tool-call", id: callId, name: "propose_compaction", arguments: argumentsObject }] },
    { blocks: [{ type: "text", text: closing }] },
  ];
}
