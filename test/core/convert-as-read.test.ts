/**
 * Converting an agent's session as pass 1 reads it (`SessionLineIndexer.convertAsRead`, what an
 * import does): the bet that the conversation's chain is every record read. Won, the events handed
 * out while reading and the converter's last ones are exactly the conversation the two passes
 * make; lost (a rewound prompt, a record that fails to convert, `take` calling it off), the plan
 * keeps nothing and pass 2 reads the lines again, to the same conversation.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import {
  type AgentImportSummary,
  convertSession,
  type EarlyStart,
  importSessionText,
  type SessionConverter,
  type SessionEnd,
  SessionLineIndexer,
  type SessionPlan,
  sessionConversation,
} from "../../src/core/interop/agent-session.js";
import type { Parsed } from "../../src/core/parsed.js";
import { ClaudeCodeSessionReader } from "../../src/core/interop/claude-code.js";
import { PiSessionReader } from "../../src/core/interop/pi.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/agents/", import.meta.url));

const READERS = {
  "claude-code": (label: string) => new ClaudeCodeSessionReader(label),
  pi: (label: string) => new PiSessionReader(label),
} as const;

/**
 * Both passes as an import runs them: lines read with `convertAsRead` (`take` answering `answer`
 * for each batch), then the converter finished when the bet held, else the lines converted again.
 */
function importAsRead(
  text: string,
  reader: SessionLineIndexer,
  answer: (batch: number) => boolean = () => true,
) {
  const early: ConversationEvent[] = [];
  let batches = 0;
  reader.convertAsRead((events) => {
    early.push(...events);
    return answer(batches++);
  });
  const lines = text.split("\n");
  const fragment = lines.pop() ?? "";
  for (const line of lines) {
    const added = reader.addLine(line);
    if (!added.ok) throw new Error(added.message);
  }
  const last = reader.addFinalFragment(fragment);
  if (!last.ok) throw new Error(last.message);
  const conversation = reader.earlyConversation;
  const plan = reader.finish();
  if (!plan.ok) throw new Error(plan.message);
  if (plan.value.convertedAsRead === true) {
    expect(plan.value.records).toBeUndefined();
    expect(plan.value.lines).toBe(0);
    expect(conversation).toEqual({
      id: plan.value.conversation.id,
      createdAt: plan.value.conversation.createdAt,
    });
    const end = plan.value.convert().finish();
    if (!end.ok) throw new Error(end.message);
    return {
      won: true,
      events: [...early, ...end.value.events],
      title: end.value.title,
      summary: end.value.summary,
      warnings: end.value.warnings,
    };
  }
  // Lost: nothing kept, the lines go to pass 2 again.
  expect(plan.value.records).toBeUndefined();
  lines.push(fragment);
  const again = convertSession(
    {
      addLine: () => ({ ok: true, value: undefined }),
      addFinalFragment: () => ({ ok: true, value: undefined }),
      finish: () => plan,
    },
    lines.length,
    (converter, line) => converter.addLine(lines[line - 1]!, line),
  );
  if (!again.ok) throw new Error(again.message);
  return {
    won: false,
    events: again.value.conversation.events,
    title: again.value.conversation.title,
    summary: again.value.summary,
    warnings: again.value.warnings,
  };
}

/**
 * The session with a rewound prompt: a copy of its second prompt, under a new id, put right before
 * it and hanging off the same parent (the user went back and asked again). Left off the chain.
 */
function rewound(agent: keyof typeof READERS, text: string): string {
  const lines = text.trimEnd().split("\n");
  const prompts = lines
    .map((line, index) => ({ record: JSON.parse(line), index }))
    .filter(({ record }) =>
      agent === "pi"
        ? record.type === "message" && record.message.role === "user"
        : record.type === "user" && typeof record.message.content === "string",
    );
  const { record, index } = prompts[1]!;
  const copy =
    agent === "pi"
      ? { ...record, id: "abandoned", message: { ...record.message, content: "asked first" } }
      : { ...record, uuid: "abandoned-uuid", message: { ...record.message, content: "asked first" } };
  lines.splice(index, 0, JSON.stringify(copy));
  return `${lines.join("\n")}\n`;
}

describe("converting a session as it is read", () => {
  it.each([
    // [agent, session, whether every record the reader keeps is on the conversation's chain]
    ["claude-code", "session.jsonl", true],
    ["claude-code", "edits.jsonl", true],
    ["claude-code", "rewound", false],
    ["pi", "session.jsonl", true],
    ["pi", "edits.jsonl", true],
    ["pi", "rewound", false],
  ] as const)("%s %s: the conversation both passes make (bet won: %s)", (agent, name, wins) => {
    const label = `${agent}/${name}`;
    const text =
      name === "rewound"
        ? rewound(agent, readFileSync(`${FIXTURES}${agent}/session.jsonl`, "utf8"))
        : readFileSync(`${FIXTURES}${agent}/${name}`, "utf8");
    const whole = importSessionText(text, READERS[agent](label));
    if (!whole.ok) throw new Error(whole.message);
    if (!wins) expect(whole.value.summary.abandonedRecords).toBe(1);
    const read = importAsRead(text, READERS[agent](label));
    expect(read.won).toBe(wins);
    expect(read.events).toEqual(whole.value.conversation.events);
    expect(read.title).toEqual(whole.value.conversation.title);
    // The same counts and notes, in the same order: pass 1's, then the converter's.
    expect(JSON.stringify(read.summary)).toBe(JSON.stringify(whole.value.summary));
    expect(read.warnings).toEqual(whole.value.warnings);
  });

  it.each(["claude-code", "pi"] as const)(
    "%s: `take` calling the bet off sends pass 2 back to the lines, to the same conversation",
    (agent) => {
      const text = readFileSync(`${FIXTURES}${agent}/session.jsonl`, "utf8");
      const whole = importSessionText(text, READERS[agent]("s"));
      if (!whole.ok) throw new Error(whole.message);
      const read = importAsRead(text, READERS[agent]("s"), (batch) => batch < 2);
      expect(read.won).toBe(false);
      expect(read.events).toEqual(whole.value.conversation.events);
      expect(JSON.stringify(read.summary)).toBe(JSON.stringify(whole.value.summary));
    },
  );

  it("a record that fails to convert calls the bet off: pass 2 converts the lines again and says what is wrong", () => {
    // A reader of one-line records, each on the chain: `{"type":"n","id":…}`; its converter refuses
    // a record marked `bad` (as a reader refuses an event its check rejects).
    class Converter implements SessionConverter {
      readonly seen: number[] = [];
      addLine(text: string, line: number): Parsed<ConversationEvent[]> {
        return this.addRecord(JSON.parse(text), line);
      }
      addRecord(record: Record<string, unknown>, line: number): Parsed<ConversationEvent[]> {
        if (record.bad === true) return { ok: false, message: `s:${line}: bad record` };
        this.seen.push(line);
        return { ok: true, value: [] };
      }
      rebase(): boolean {
        return true;
      }
      finish(): Parsed<SessionEnd> {
        return { ok: true, value: { events: [], summary: {} as AgentImportSummary, warnings: [] } };
      }
    }
    const converters: Converter[] = [];
    const make = () => {
      const converter = new Converter();
      converters.push(converter);
      return converter;
    };
    class Reader extends SessionLineIndexer {
      private readonly included = new Map<number, string>();
      constructor() {
        super("s", "pi", "pi", true);
      }
      protected addRecord(record: Record<string, unknown>): Parsed<void> {
        this.included.set(this.line, String(record.id));
        if (!this.convertNow(record, String(record.id))) this.keep(record);
        return { ok: true, value: undefined };
      }
      protected override earlyConverter(): EarlyStart {
        return { converter: make(), key: "pi:s", createdAt: "2026-01-01T00:00:00.000Z" };
      }
      finish(): Parsed<SessionPlan> {
        return this.chainPlan(
          sessionConversation("pi:s", "2026-01-01T00:00:00.000Z", {}),
          this.included,
          make,
        );
      }
    }
    const lines = ['{"type":"n","id":"a"}', '{"type":"n","id":"b","bad":true}', '{"type":"n","id":"c"}'];
    const reader = new Reader();
    reader.convertAsRead(() => true);
    for (const line of lines) expect(reader.addLine(line).ok).toBe(true);
    const plan = reader.finish();
    if (!plan.ok) throw new Error(plan.message);
    // The early converter stopped at the bad record; the plan keeps nothing and wants every line.
    expect(converters[0]!.seen).toEqual([1]);
    expect(plan.value.convertedAsRead).toBeUndefined();
    expect(plan.value.records).toBeUndefined();
    expect([1, 2, 3].map((line) => plan.value.wants(line))).toEqual([true, true, true]);
    const again = plan.value.convert();
    expect(again).not.toBe(converters[0]);
    expect(again.addLine(lines[0]!, 1).ok).toBe(true);
    expect(again.addLine(lines[1]!, 2)).toEqual({ ok: false, message: "s:2: bad record" });
  });
});
