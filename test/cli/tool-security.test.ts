/**
 * Local command tools under attack, end to end through `cxc q` and the fake provider: a model
 * that sends shell syntax in every argument runs nothing, the command sees the literal text, and a
 * tool that prints its environment leaks no provider key into the log or back to the provider.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { makeQueryHome, type QueryHome } from "../query/e2e.js";

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
  home = makeQueryHome(provider);
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

const PAYLOADS = [
  "$(touch PWNED)",
  "`touch PWNED`",
  "x; touch PWNED",
  "x && touch PWNED",
  "x | touch PWNED",
  "x\ntouch PWNED",
  "'; touch PWNED; '",
  '"; touch PWNED; "',
];

function toolCall(id: string, name: string, argumentsObject: Record<string, unknown>) {
  return { blocks: [{ type: "tool-call" as const, id, name, arguments: argumentsObject }] };
}

/** The directory `cxc q` runs in (and so its tools). */
function workDirectory(): string {
  return join(home.home.home, "..");
}

describe("a model sending shell syntax", () => {
  it("runs nothing in either command form; the program gets the literal text", async () => {
    home.writeConfig(`
[conversation.tools.shell_echo]
command = "printf '%s' {{text}}"
run = "unattended"

[conversation.tools.argv_echo]
command = ["printf", "%s", "{{text}}"]
run = "unattended"
`);
    const calls = PAYLOADS.flatMap((payload, index) => [
      toolCall(`s${index}`, "shell_echo", { text: payload }),
      toolCall(`a${index}`, "argv_echo", { text: payload }),
    ]);
    provider.enqueue(...calls, textReply("done"));
    const result = await home.q(["go"]);
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(workDirectory(), "PWNED"))).toBe(false);
    const responses = home.events().filter((event) => event.type === "tool_call_response");
    expect(responses.map((event) => event.content)).toEqual(
      PAYLOADS.flatMap((payload) => [payload, payload]),
    );
    expect(responses.every((event) => event.is_error === false)).toBe(true);
  });
});

describe("a tool that prints its environment", () => {
  it("stores and sends no provider key", async () => {
    home.writeConfig(`
[conversation.tools.show_env]
command = "env"
run = "unattended"
env = ["CXC_TEST_PASSED"]
`);
    provider.enqueue(toolCall("call_1", "show_env", {}), textReply("seen"));
    const result = await home.q(["what is set?"], {
      env: { OPENAI_API_KEY: "sk-openai-leak", CXC_TEST_PASSED: "yes", UNLISTED: "no" },
    });
    expect(result.exitCode).toBe(0);
    const response = home.events().find((event) => event.type === "tool_call_response");
    expect(response?.content).toContain("CXC_TEST_PASSED=yes");
    expect(response?.content).toContain("PATH=");
    const log = readFileSync(join(home.home.home, "conversations", home.activeId(), "events.jsonl"), "utf8");
    const sent = JSON.stringify(provider.requests.map((request) => request.body));
    for (const secret of [home.env.ANTHROPIC_API_KEY, "sk-openai-leak", "UNLISTED"]) {
      expect(log).not.toContain(secret);
      expect(sent).not.toContain(secret);
    }
  });
});
