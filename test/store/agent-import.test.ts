/**
 * Importing an agent's session into the file store in two passes (src/store/agent-sessions.ts):
 * pass 1 indexes the file, pass 2 converts the chain's records and writes the events to a staged
 * conversation as they come. What lands on disk is what the whole-file importer makes; a failure
 * in pass 2, or a file that changed since pass 1, leaves nothing behind.
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { importPiSession } from "../../src/core/interop/pi.js";
import { loadInterop, type Store } from "../../src/store/index.js";
import type { AgentImportBatch } from "../../src/store/agent-sessions.js";
import { ConversationStore } from "../../src/store/store.js";
import { CxcError } from "../../src/errors.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/agents/", import.meta.url));
const { readAgentImport, saveAgentImport } = await loadInterop();

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function scratch(): { root: string; store: Store; files: string } {
  const root = mkdtempSync(join(tmpdir(), "cxc-agent-import-"));
  directories.push(root);
  const store = new ConversationStore({ kind: "home", root, origin: "test" }, { CXC_HOME: root });
  return { root, store, files: mkdtempSync(join(root, "files-")) };
}

const everything = (root: string) => readdirSync(join(root, "conversations"));

/** `batch` and, after its sessions, pi's fixture session whose pass 2 fails at line 4. */
async function withFailingSession(batch: AgentImportBatch): Promise<AgentImportBatch> {
  const failing = (await readAgentImport(join(FIXTURES, "pi/session.jsonl"), "pi")).files[0]!;
  const convert = () => ({
    addLine: () => ({ ok: false as const, message: "session.jsonl:4: refused" }),
    finish: failing.plan.convert().finish,
  });
  return { ...batch, files: [...batch.files, { ...failing, plan: { ...failing.plan, convert } }] };
}

describe("importing an agent session into the file store", () => {
  it.each([
    ["claude-code", "claude-code/session.jsonl", importClaudeCodeSession],
    ["pi", "pi/session.jsonl", importPiSession],
  ] as const)(
    "%s: stores what the whole-file importer makes, with its counts",
    async (agent, path, whole) => {
      const { store } = scratch();
      const file = join(FIXTURES, path);
      const batch = await readAgentImport(file, agent);
      const [outcome] = await saveAgentImport(store, batch, { skipExisting: false });
      const expected = whole(readFileSync(file, "utf8"), file);
      if (!expected.ok) throw new Error(expected.message);
      const loaded = store.load(outcome!.id);
      expect(loaded.events).toEqual(expected.value.conversation.events);
      expect(outcome).toMatchObject({
        file,
        skipped: false,
        events: expected.value.conversation.events.length,
        title: expected.value.conversation.title,
        summary: expected.value.summary,
      });
      expect(loaded.meta).toMatchObject({
        title: expected.value.conversation.title,
        created_at: expected.value.conversation.createdAt,
        turn_count: outcome!.turns,
        origin: { agent, file },
      });
      const again = await saveAgentImport(store, await readAgentImport(file, agent), { skipExisting: true });
      expect(again).toEqual([{ ...outcome, skipped: true }]);
    },
  );

  it.each([
    ["claude-code", "claude-code/session.jsonl"],
    ["pi", "pi/session.jsonl"],
  ] as const)(
    "%s: staged as pass 1 reads it (an import's way), the same conversation and report, nothing left over",
    async (agent, path) => {
      const { root, store } = scratch();
      const other = scratch();
      const file = join(FIXTURES, path);
      const early = await readAgentImport(file, agent, {}, { stageInto: store });
      // The bet held: the events are staged already (a hidden directory), no records kept.
      expect(early.files[0]!.early?.staged).toBeDefined();
      expect(early.files[0]!.plan.records).toBeUndefined();
      expect(everything(root).filter((name) => name.startsWith("."))).toHaveLength(1);
      const [outcome] = await saveAgentImport(store, early, { skipExisting: false });
      const [plain] = await saveAgentImport(other.store, await readAgentImport(file, agent), {
        skipExisting: false,
      });
      expect(outcome).toEqual(plain);
      expect(everything(root)).toEqual([outcome!.id]);
      const read = (at: string) =>
        readFileSync(join(at, "conversations", outcome!.id, "events.jsonl"), "utf8");
      expect(read(root)).toBe(read(other.root));
      expect(store.load(outcome!.id).meta).toEqual(other.store.load(outcome!.id).meta);
      // Imported again, skipping what exists: the bet is called off before anything is staged.
      const again = await readAgentImport(file, agent, {}, { stageInto: store });
      expect(again.files[0]!.early).toBeUndefined();
      expect(await saveAgentImport(store, again, { skipExisting: true })).toEqual([
        { ...outcome, skipped: true },
      ]);
      expect(everything(root)).toEqual([outcome!.id]);
    },
  );

  it("staged as read: a folder whose second session is refused leaves nothing staged", async () => {
    const { root, store, files } = scratch();
    copyFileSync(join(FIXTURES, "claude-code/session.jsonl"), join(files, "a.jsonl"));
    const lines = readFileSync(join(FIXTURES, "claude-code/session.jsonl"), "utf8").trimEnd().split("\n");
    writeFileSync(join(files, "b.jsonl"), `${lines.slice(0, 6).join("\n")}\n{"type":"user",\n${lines[7]}\n`);
    await expect(readAgentImport(files, "claude-code", {}, { stageInto: store })).rejects.toThrow(
      /b\.jsonl:7: not valid JSON/,
    );
    expect(everything(root)).toEqual([]);
  });

  it("staged as read: a session that fails in pass 2 takes the staged one before it along", async () => {
    const { root, store } = scratch();
    const good = await readAgentImport(
      join(FIXTURES, "claude-code/session.jsonl"),
      "claude-code",
      {},
      {
        stageInto: store,
      },
    );
    expect(good.files[0]!.early?.staged).toBeDefined();
    await expect(
      saveAgentImport(store, await withFailingSession(good), { skipExisting: false }),
    ).rejects.toThrow(new CxcError("import-invalid", "session.jsonl:4: refused"));
    expect(everything(root)).toEqual([]);
  });

  it("staged as read: a store that cannot stage says so, not that the file is unreadable", async () => {
    const { root, store } = scratch();
    const failing: Pick<Store, "locate" | "stage"> = {
      locate: (id) => store.locate(id),
      stage: () => {
        throw new CxcError("store-unreadable", "cannot create the conversation: no space left on device");
      },
    };
    await expect(
      readAgentImport(join(FIXTURES, "pi/session.jsonl"), "pi", {}, { stageInto: failing }),
    ).rejects.toThrow(
      new CxcError("store-unreadable", "cannot create the conversation: no space left on device"),
    );
    expect(existsSync(join(root, "conversations"))).toBe(false);
  });

  it("reads lines that span many reads whole: a tool result of 3 MB, a record line of 12 MB", async () => {
    const { store, files } = scratch();
    const records = readFileSync(join(FIXTURES, "claude-code/session.jsonl"), "utf8").trim().split("\n");
    const big = "0123456789abcdef".repeat(3 * 65_536);
    const grown = records.map((line) => {
      const record = JSON.parse(line) as { message?: { content?: unknown } };
      const content = record.message?.content;
      if (!Array.isArray(content) || !content.some((block) => block.type === "tool_result")) return line;
      return JSON.stringify({
        ...record,
        message: {
          ...record.message,
          content: content.map((block) =>
            block.type === "tool_result" ? { ...block, content: big } : block,
          ),
        },
      });
    });
    // A bookkeeping record of 12 MB (Gemini CLI writes its whole history as one line): left out, read whole.
    const file = join(files, "long-lines.jsonl");
    writeFileSync(
      file,
      [...grown, JSON.stringify({ type: "file-history-snapshot", snapshot: { blob: big.repeat(4) } })].join(
        "\n",
      ) + "\n",
    );
    const batch = await readAgentImport(file, "claude-code");
    const [outcome] = await saveAgentImport(store, batch, { skipExisting: false });
    const expected = importClaudeCodeSession(readFileSync(file, "utf8"), file);
    if (!expected.ok) throw new Error(expected.message);
    expect(store.load(outcome!.id).events).toEqual(expected.value.conversation.events);
    expect(JSON.stringify(expected.value.conversation.events)).toContain(big);
  });

  it("a session that fails in pass 2 leaves nothing, not even the sessions before it", async () => {
    const { root, store } = scratch();
    const good = await readAgentImport(join(FIXTURES, "claude-code/session.jsonl"), "claude-code");
    await expect(
      saveAgentImport(store, await withFailingSession(good), { skipExisting: false }),
    ).rejects.toThrow(new CxcError("import-invalid", "session.jsonl:4: refused"));
    expect(store.ids()).toEqual([]);
    expect(everything(root)).toEqual([]);
  });

  it("refuses a file that changed since pass 1, naming the line, and writes nothing", async () => {
    const { root, store, files } = scratch();
    const file = join(files, "session.jsonl");
    copyFileSync(join(FIXTURES, "claude-code/session.jsonl"), file);
    const batch = await readAgentImport(file, "claude-code");
    const lines = readFileSync(file, "utf8").split("\n");
    const index = lines.findIndex((line) => line.includes('"type":"assistant"'));
    const record = JSON.parse(lines[index]!) as Record<string, unknown>;
    lines[index] = JSON.stringify({ ...record, uuid: "rewritten" });
    writeFileSync(file, lines.join("\n"));
    await expect(saveAgentImport(store, batch, { skipExisting: false })).rejects.toThrow(
      new CxcError(
        "import-invalid",
        `${file}:${index + 1}: the file changed while cxc read it; import it again`,
      ),
    );
    expect(everything(root)).toEqual([]);
  });
});
