/**
 * Live checks against the real APIs. Opt-in only: they run when CXC_LIVE_TESTS=1 and the
 * provider's key is set (they cost a few tokens). The default suite never touches the network.
 *
 *   CXC_LIVE_TESTS=1 ANTHROPIC_API_KEY=… OPENAI_API_KEY=… npx vitest run test/llm/live.test.ts
 */
import { describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/core/conversation/events.js";
import { buildLlmRequest } from "../../src/core/conversation/request.js";
import { createLlmClient } from "../../src/llm/registry.js";
import type { LlmStreamEvent } from "../../src/llm/types.js";

const live = process.env.CXC_LIVE_TESTS === "1";

const cases = [
  {
    provider: "anthropic",
    model: process.env.CXC_LIVE_ANTHROPIC_MODEL ?? "anthropic/claude-haiku-4-5",
    key: "ANTHROPIC_API_KEY",
  },
  {
    provider: "openai",
    model: process.env.CXC_LIVE_OPENAI_MODEL ?? "openai/gpt-5-mini",
    key: "OPENAI_API_KEY",
  },
] as const;

for (const testCase of cases) {
  describe.skipIf(!live || !process.env[testCase.key])(`live ${testCase.provider}`, () => {
    it("streams a short answer that ends with exactly one message-end", async () => {
      const client = createLlmClient(testCase.model, { env: process.env });
      const question: TurnEvent[] = [
        { type: "turn_start", id: "live-1", ts: "2026-11-30T10:00:00.000Z" },
        {
          type: "chat_request",
          id: "live-2",
          ts: "2026-11-30T10:00:00.001Z",
          content: "Reply with the single word: pong",
        },
      ];
      const request = { ...buildLlmRequest([{ events: question }]), maxOutputTokens: 200 };
      const events: LlmStreamEvent[] = [];
      for await (const event of client.stream(request, {})) events.push(event);
      const last = events.at(-1);
      expect(last?.type, JSON.stringify(last)).toBe("message-end");
      expect(events.filter((event) => event.type === "message-end" || event.type === "error")).toHaveLength(
        1,
      );
      const text = events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
      expect(text.toLowerCase()).toContain("pong");
    }, 60_000);
  });
}
