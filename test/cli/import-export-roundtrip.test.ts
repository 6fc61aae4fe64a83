/**
 * Every real jp workspace (the committed subset, and the full one in ../shared when present)
 * through the store functions the commands use, in process (fast): import every conversation into
 * a memory store, export each with `--to jp`, compare every file byte for byte with the original,
 * import the exported copies into a second store and compare the events.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  createMemoryStore,
  type ImportOutcome,
  loadInterop,
  newConversationId,
  newEventId,
  type Store,
  timestampNow,
} from "../../src/store/index.js";
import {
  JP_WORKSPACES,
  jpConversationDirectories,
  noticeMissingSharedWorkspace,
} from "../helpers/jp-fixtures.js";

const { readImport, saveImported, writeJpExport } = await loadInterop();

noticeMissingSharedWorkspace("the jp workspace round trip");

const base = mkdtempSync(join(tmpdir(), "cxc-roundtrip-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function importPath(store: Store, path: string): Promise<ImportOutcome[]> {
  const batch = readImport({
    path,
    now: () => timestampNow(),
    newEventId: () => newEventId(),
    newConversationId: () => newConversationId(),
  });
  expect(batch.warnings).toEqual([]);
  return saveImported(store, batch.conversations, { skipExisting: false });
}

describe.each(JP_WORKSPACES)(
  "every conversation of the $name jp workspace round-trips through the store",
  (jp) => {
    it("imports, exports byte-for-byte, and re-imports identical events", async () => {
      const CONVERSATIONS = jp.conversations;
      const first = await createMemoryStore();
      const outcomes = await importPath(first, jp.root);
      expect(outcomes).toHaveLength(jpConversationDirectories(jp).length);
      expect(outcomes.filter((outcome) => outcome.conversation.archived)).toHaveLength(1);
      const output = join(base, `${jp.name}-exported`);
      for (const { conversation } of outcomes) {
        const { directory } = writeJpExport(first.load(conversation.id), output);
        const original = join(
          CONVERSATIONS,
          conversation.archived ? ".archive" : "",
          directory.split("/").at(-1)!,
        );
        expect(readdirSync(directory).sort()).toEqual(readdirSync(original).sort());
        for (const file of readdirSync(original)) {
          expect(
            readFileSync(join(directory, file), "utf8") === readFileSync(join(original, file), "utf8"),
            file,
          ).toBe(true);
        }
      }
      const second = await createMemoryStore();
      const again = await importPath(second, output);
      expect(again.map((outcome) => outcome.conversation.id).sort()).toEqual(
        outcomes.map((outcome) => outcome.conversation.id).sort(),
      );
      for (const { conversation } of outcomes) {
        const before = first.load(conversation.id);
        const after = second.load(conversation.id);
        expect(after.events).toEqual(before.events);
        expect(after.meta.title).toBe(before.meta.title);
        expect(after.meta.last_activated_at).toBe(before.meta.last_activated_at);
      }
    });
  },
);
