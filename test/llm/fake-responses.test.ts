/**
 * The fake provider's Responses API stream (what Codex speaks), read by the real OpenAI SDK: text,
 * reasoning and function calls arrive as the SDK's own events and final response.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../helpers/fake-provider.js";

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

describe("fake provider: the Responses API", () => {
  it("streams reasoning, a function call and text that the SDK assembles into a response", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "Look first.", signature: "enc-1" },
        { type: "tool-call", id: "call_1", name: "exec_command", arguments: { cmd: "ls" } },
        { type: "text", text: "Here are the files." },
      ],
    });
    const client = new OpenAI({ apiKey: "fake", baseURL: provider.openaiBaseURL, maxRetries: 0 });
    const stream = await client.responses.create({ model: "gpt-fake", input: "What files?", stream: true });
    const types: string[] = [];
    let text = "";
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") final = event.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(text).toBe("Here are the files.");
    expect(final?.output.map((item) => item.type)).toEqual(["reasoning", "function_call", "message"]);
    expect(final?.output[1]).toMatchObject({
      call_id: "call_1",
      name: "exec_command",
      arguments: '{"cmd":"ls"}',
    });
    expect(final?.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    expect(provider.requests.at(-1)).toMatchObject({ path: "/v1/responses", body: { input: "What files?" } });
  });
});
