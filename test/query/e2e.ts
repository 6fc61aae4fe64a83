/**
 * Shared pieces of the `cxc q` end-to-end tests: a temporary home wired to the loopback fake
 * provider, a config file writer, and readers for what was stored and what the provider received.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CxcResult, makeTempHome, type TempHome } from "../helpers/cli.js";
import type { FakeProvider } from "../helpers/fake-provider.js";

export const TEST_MODEL = "anthropic/claude-sonnet-4-6";

/** A temporary home whose `cxc q` talks to `provider`. */
export interface QueryHome {
  readonly home: TempHome;
  readonly env: Record<string, string>;
  q(args: readonly string[], options?: { input?: string; env?: Record<string, string> }): Promise<CxcResult>;
  /** Writes the user config file (TOML). */
  writeConfig(toml: string): void;
  activeId(): string;
  events(id?: string): Record<string, unknown>[];
}

export function makeQueryHome(provider: FakeProvider): QueryHome {
  const home = makeTempHome();
  const env = {
    ANTHROPIC_API_KEY: "test-key-anthropic",
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    CXC_ASSISTANT__MODEL__ID: TEST_MODEL,
  };
  const activeId = (): string => {
    const file = readFileSync(join(home.home, "sessions", "default.json"), "utf8");
    return (JSON.parse(file) as { active: string }).active;
  };
  return {
    home,
    env,
    q: (args, options = {}) =>
      home.run(["q", ...args], {
        env: { ...env, ...options.env },
        ...(options.input === undefined ? {} : { input: options.input }),
      }),
    writeConfig: (toml) => {
      const directory = join(home.env.XDG_CONFIG_HOME!, "cxc");
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, "config.toml"), toml);
    },
    activeId,
    events: (id) => {
      const text = readFileSync(join(home.home, "conversations", id ?? activeId(), "events.jsonl"), "utf8");
      return text
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** The Anthropic request body number `index` the provider received. */
export function requestBody(
  provider: FakeProvider,
  index: number,
): {
  messages: { role: string; content: { type: string; [key: string]: unknown }[] }[];
  [key: string]: unknown;
} {
  return provider.requests[index]!.body as never;
}

/**
 * Recall off (docs/recall.md): for the tests whose request bodies are about something else, so
 * they stay as they were before recall; test/cli/recall.test.ts has the recall-on variants.
 */
export const RECALL_OFF = "\n[conversation.recall]\nenabled = false\n";

/** A config block defining the `word_count` local command tool with the given run mode. */
export function wordCountTool(run: string, extra = ""): string {
  return `
[conversation.tools.word_count]
command = "printf '%s' {{text}} | wc -w"
description = "Counts the words of a text"
run = "${run}"
${extra}
[conversation.tools.word_count.parameters]
type = "object"
required = ["text"]
[conversation.tools.word_count.parameters.properties.text]
type = "string"
`;
}
