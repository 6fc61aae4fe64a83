/** Small helpers shared by the provider tests: collecting a stream and building requests. */
import type { LlmRequest } from "../../src/core/conversation/request.js";
import type { LlmStreamEvent } from "../../src/llm/types.js";

/** Collects every event of a stream (the stream contract says it never throws). */
export async function collectEvents(stream: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const events: LlmStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The concatenated text deltas. */
export function textOf(events: readonly LlmStreamEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}

/** Events that end a stream. */
export function terminalEvents(events: readonly LlmStreamEvent[]): LlmStreamEvent[] {
  return events.filter((event) => event.type === "message-end" || event.type === "error");
}

/** A one-message request. */
export function userRequest(text: string, extra: Partial<LlmRequest> = {}): LlmRequest {
  return { messages: [{ role: "user", parts: [{ type: "text", text }] }], tools: [], ...extra };
}
