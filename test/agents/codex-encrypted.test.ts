/**
 * OpenAI's encrypted compaction, end to end with the real Codex (agents/codex) against the
 * loopback fake: the committed rollout whose `compacted` record holds an encrypted `compaction`
 * item (fixtures/agents/codex-encrypted) is resumed as it is, then imported into cxc, exported
 * back and resumed again. Codex sends the same conversation both times, the encrypted item
 * byte for byte: for a compaction before a turn, and for one Codex made inside a turn
 * (fixtures/agents/codex-encrypted/mid-turn.jsonl), whose history holds that turn's prompt and
 * whose item stands for the turn's steps before it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  runCodex,
  codexSessionDirectory,
  fromPlaceholders,
  writeCodexConfig,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "codex-encrypted", "session.jsonl");
const MID_TURN_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "codex-encrypted", "mid-turn.jsonl");
const SESSION = "01a23358-e882-7c42-88a0-a135032d3c80";
const ENCRYPTED = "gAAAAABpY3hjLWZpeHR1cmUtZW5jcnlwdGVkLWNvbXBhY3Rpb24tb25seS1vcGVuYWktY2FuLXJlYWQtdGhpcw==";

type Item = Record<string, unknown>;

let fake: FakeProvider;
let root: string;
let codex: string;
const cxcHomes: TempHome[] = [];

beforeAll(async () => {
  codex = requireAgent(PROJECT_ROOT, "codex");
  root = mkdtempSync(join(tmpdir(), "cxc-codex-encrypted-"));
  fake = await startFakeProvider();
});

afterAll(async () => {
  await fake?.close();
  for (const home of cxcHomes) home.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

function placeOf(name: string): AgentPlace {
  const place = { home: join(root, name), cwd: join(root, "project") };
  mkdirSync(place.home, { recursive: true });
  mkdirSync(place.cwd, { recursive: true });
  writeCodexConfig(place.home, fake.url);
  return place;
}

/** Resumes a session with `codex exec resume` and returns the input Codex sent for it. */
async function resumeInput(id: string, place: AgentPlace): Promise<Item[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  await runCodex(codex, place, ["resume", id, "Anything else?"]);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  return (turns[0]!.body as { input: Item[] }).input;
}

/** The conversation's own items: no developer instructions, no environment context, no ids. */
function conversationItems(input: readonly Item[]): Item[] {
  const fresh = new Set(["id", "status", "logprobs"]);
  return input
    .filter((item) => item.role !== "developer")
    .filter((item) => !JSON.stringify(item.content ?? "").includes("<environment_context>"))
    .map((item) => JSON.parse(JSON.stringify(item, (key, value) => (fresh.has(key) ? undefined : value))));
}

describe("OpenAI's encrypted compaction through cxc, resumed by the real Codex", () => {
  it.each([
    ["before a turn", FIXTURE, "home"],
    ["inside a turn", MID_TURN_FIXTURE, "mid"],
  ])(
    "resumes the exported session (compacted %s) with the conversation the original sends, the item byte for byte",
    async (_when, fixture, name) => {
      const first = placeOf(`${name}-original`);
      const copy = join(
        codexSessionDirectory(first),
        "2026",
        "12",
        "01",
        `rollout-2026-12-01T20-43-14-${SESSION}.jsonl`,
      );
      mkdirSync(join(copy, ".."), { recursive: true });
      const text = fromPlaceholders(readFileSync(fixture, "utf8"), first);
      writeFileSync(copy, text);
      const source = join(root, `${name}-rollout.jsonl`);
      writeFileSync(source, text);
      const original = await resumeInput(SESSION, first);
      expect(original).toContainEqual({ type: "compaction", encrypted_content: ENCRYPTED });

      const trip = placeOf(`${name}-trip`);
      // A store of its own: both sessions have the same id, and cxc imports a session once.
      const cxcHome = makeTempHome();
      cxcHomes.push(cxcHome);
      const env = { HOME: trip.home, CODEX_HOME: join(trip.home, ".codex") };
      const imported = await cxcHome.run(["conversation", "import", source], { cwd: trip.cwd, env });
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(imported.stdout).toContain("1 compaction of Codex's as an overlay");
      const printed = await cxcHome.run(["conversation", "print", "--compacted", "--style", "full"], {
        cwd: trip.cwd,
        env,
      });
      expect(printed.stdout).toContain("[encrypted compaction by fake/gpt-fake]");
      const exported = await cxcHome.run(["conversation", "export", "--to", "codex"], { cwd: trip.cwd, env });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const id = /codex resume ([0-9a-f-]{36})/.exec(exported.stdout)?.[1];
      expect(id, exported.stdout).toBeDefined();
      const rollout = readdirSync(codexSessionDirectory(trip), { recursive: true }).find((file) =>
        String(file).endsWith(`${id}.jsonl`),
      );
      const written = readFileSync(join(codexSessionDirectory(trip), String(rollout)), "utf8");
      expect(written).toContain(`{"type":"compaction","encrypted_content":"${ENCRYPTED}"}`);
      const tripped = await resumeInput(id!, trip);

      expect(tripped).toContainEqual({ type: "compaction", encrypted_content: ENCRYPTED });
      // cxc's export adds its recall index after a compaction (docs/recall.md); the rest is the same.
      const recallIndex = (item: Item) => JSON.stringify(item.content ?? "").includes("[Recall index:");
      expect(tripped.filter(recallIndex)).toHaveLength(1);
      expect(conversationItems(tripped.filter((item) => !recallIndex(item)))).toEqual(
        conversationItems(original),
      );
    },
  );
});
