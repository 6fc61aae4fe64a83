/** The fake provider as a standalone process: scripted replies in, recorded requests out. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIClient } from "../../src/llm/openai.js";
import { collectEvents, textOf, userRequest } from "./stream-helpers.js";

const cliPath = fileURLToPath(new URL("../helpers/fake-provider-cli.mjs", import.meta.url));
let child: ChildProcess | undefined;
let directory: string | undefined;

afterEach(() => {
  child?.kill("SIGTERM");
  child = undefined;
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe("fake-provider-cli", () => {
  it("serves the script and records requests to a file", async () => {
    directory = mkdtempSync(join(tmpdir(), "cxc-fake-cli-"));
    const scriptPath = join(directory, "script.json");
    const recordPath = join(directory, "requests.json");
    writeFileSync(scriptPath, JSON.stringify([{ blocks: [{ type: "text", text: "from the process" }] }]));
    child = spawn(process.execPath, [cliPath, "--script", scriptPath, "--record", recordPath], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const firstLine = await new Promise<string>((resolve) => {
      createInterface({ input: child!.stdout! }).once("line", resolve);
    });
    const { openaiBaseURL } = JSON.parse(firstLine) as { openaiBaseURL: string };
    expect(openaiBaseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = createOpenAIClient({
      modelId: "openai/m",
      model: "m",
      apiKey: "k",
      baseURL: openaiBaseURL,
    });
    expect(textOf(await collectEvents(client.stream(userRequest("hello process"))))).toBe("from the process");
    const recorded = JSON.parse(readFileSync(recordPath, "utf8")) as {
      path: string;
      body: { messages: unknown[] };
    }[];
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.path).toBe("/v1/chat/completions");
    expect(recorded[0]!.body.messages).toEqual([{ role: "user", content: "hello process" }]);
  });
});
