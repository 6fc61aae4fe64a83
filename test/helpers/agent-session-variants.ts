/**
 * Variants of the committed Claude Code and pi sessions (fixtures/agents/) that exercise how the
 * importers find a conversation in a file: side chains, abandoned branches, a second compaction,
 * a rewound prompt whose new branch wins. test/core/interop-streaming.test.ts compares what the
 * importers make of each with test/core/golden/agent-import.json.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

type Json = Record<string, unknown>;

const fixture = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/agents/${path}`, import.meta.url)), "utf8");
const recordsOf = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
const toJsonl = (items: readonly unknown[]) => `${items.map((item) => JSON.stringify(item)).join("\n")}\n`;

/** Claude Code session texts by name. */
export function claudeCodeVariants(): Record<string, string> {
  const session = fixture("claude-code/session.jsonl");
  const all = recordsOf(session);
  const chain = all.filter((record) => typeof record.uuid === "string");
  const first = chain.find((record) => record.type === "user")!;
  const base = { sessionId: first.sessionId, cwd: first.cwd, timestamp: "2026-12-01T10:20:00.000Z" };
  const prompt = (uuid: string, parentUuid: string | null, content: string, extra: Json = {}) => ({
    ...base,
    type: "user",
    uuid,
    parentUuid,
    message: { role: "user", content },
    ...extra,
  });
  const answer = (uuid: string, parentUuid: string, text: string) => ({
    ...base,
    type: "assistant",
    uuid,
    parentUuid,
    message: {
      id: `msg_${uuid}`,
      role: "assistant",
      model: "claude-fake",
      content: [{ type: "text", text }],
    },
  });
  const sideAndAbandoned = [
    prompt("side-1", null, "a subagent's task", { isSidechain: true }),
    prompt("branch-1", first.uuid as string, "an edited prompt, abandoned"),
    answer("branch-2", "branch-1", "dropped"),
  ];
  const boundary = all.find((record) => record.subtype === "compact_boundary")!;
  const summary = all.find((record) => record.isCompactSummary === true)!;
  const lastAssistant = chain.filter((record) => record.type === "assistant").at(-1)!;
  const secondCompaction = [
    {
      ...boundary,
      uuid: "boundary-2",
      logicalParentUuid: lastAssistant.uuid,
      timestamp: "2026-12-01T10:19:00.000Z",
      compactMetadata: { trigger: "auto", preTokens: 40 },
    },
    { ...summary, uuid: "summary-2", parentUuid: "boundary-2", timestamp: "2026-12-01T10:19:00.100Z" },
    prompt("prompt-2", "summary-2", "and after the second compaction?"),
    answer("answer-2", "prompt-2", "still here"),
    { type: "last-prompt", leafUuid: "answer-2", sessionId: first.sessionId },
  ];
  // An edit of the second prompt: the new branch hangs off the end of turn 1 and is the leaf.
  const firstTurnEnd = chain.filter((record) => record.type === "assistant")[4] ?? lastAssistant;
  const rewound = [
    prompt("rewound-1", firstTurnEnd.uuid as string, "a different second question"),
    answer("rewound-2", "rewound-1", "a different answer"),
    { type: "last-prompt", leafUuid: "rewound-2", sessionId: first.sessionId },
  ];
  return {
    fixture: session,
    "side chain and abandoned branch": toJsonl([...all.slice(0, 6), ...sideAndAbandoned, ...all.slice(6)]),
    "second compaction": toJsonl([...all, ...secondCompaction]),
    "rewound prompt": toJsonl([...all, ...rewound]),
  };
}

/** pi session texts by name. */
export function piVariants(): Record<string, string> {
  const session = fixture("pi/session.jsonl");
  const all = recordsOf(session);
  const entries = all.slice(1);
  const firstTurnEnd = entries.filter(
    (entry) => (entry.message as Json | undefined)?.role === "assistant",
  )[1]!;
  const message = (id: string, parentId: string, body: Json) => ({
    type: "message",
    id,
    parentId,
    timestamp: "2026-12-01T10:20:00.000Z",
    message: { timestamp: 1_796_120_400_000, ...body },
  });
  const branch = [
    message("edited-1", firstTurnEnd.id as string, { role: "user", content: "a different second question" }),
    message("edited-2", "edited-1", {
      role: "assistant",
      content: [{ type: "text", text: "a different answer" }],
      provider: "fake",
      model: "claude-fake",
      stopReason: "stop",
    }),
  ];
  return { fixture: session, "rewound prompt": toJsonl([...all, ...branch]) };
}
