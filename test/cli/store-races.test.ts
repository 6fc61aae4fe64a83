/**
 * Commands racing each other on one store, through the built CLI: each race the security review
 * found, reproduced by running the two commands at once many times.
 *
 * - `cxc q` against `archive` / `unarchive` of its conversation: q read the conversation without
 *   the lock, then the directory moved, and q failed with a raw "no such file … meta.json".
 * - Two imports of the same conversations: the second skipped silently what the first created
 *   meanwhile and exited 0; without `--skip-existing` that is the duplicate-import error.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { writeJpConversations } from "../helpers/jp-generated.js";
import { makeQueryHome } from "../query/e2e.js";

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

describe("cxc q racing archive and unarchive", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(async () => {
    await provider.close();
  });

  const ROUNDS = 12;

  it(`finds its conversation again wherever it went (${ROUNDS} rounds)`, async () => {
    const home = makeQueryHome(provider);
    homes.push(home.home);
    provider.enqueue(textReply("first"));
    expect((await home.q(["hello"])).exitCode).toBe(0);
    const id = home.activeId();
    const env = home.env;
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      provider.enqueue(textReply(`answer ${round}`));
      const mover = round % 2 === 0 ? "archive" : "unarchive";
      // Both start together; whichever gets the lock first, the other must wait and then work.
      const [query, moved] = await Promise.all([
        home.q(["--id", id, `turn ${round}`]),
        home.home.run(["conversation", mover, id], { env }),
      ]);
      if (query.exitCode !== 0) failures.push(`round ${round} q: ${query.stderr.trim()}`);
      if (moved.exitCode !== 0) failures.push(`round ${round} ${mover}: ${moved.stderr.trim()}`);
    }
    expect(failures).toEqual([]);
    const shown = await home.home.run(["--format", "json", "conversation", "show", id], { env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { turns: number }).turns).toBe(ROUNDS + 1);
  }, 120_000);
});

function storeIds(home: TempHome): string[] {
  const read = (place: string): string[] => {
    try {
      return readdirSync(join(home.home, place));
    } catch {
      return [];
    }
  };
  return [...read("conversations"), ...read("archive")].filter((name) => !name.startsWith(".")).sort();
}

describe("two imports of the same conversations at once", () => {
  const COUNT = 30;
  const ROUNDS = 4;

  it(`one imports everything, the other reports the duplicate and writes nothing (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const home = makeTempHome();
      homes.push(home);
      const source = join(home.cwd, "conversations");
      writeJpConversations(source, COUNT);
      const results = await Promise.all([
        home.run(["conversation", "import", source]),
        home.run(["conversation", "import", source]),
      ]);
      const succeeded = results.filter((result) => result.exitCode === 0);
      const failed = results.filter((result) => result.exitCode !== 0);
      expect(
        succeeded.map((result) => result.stdout.trim().split("\n").at(-1)),
        results.map((result) => result.stderr).join("\n"),
      ).toEqual([`Imported ${COUNT + 1} conversations (1 archived).`]);
      expect(failed).toHaveLength(1);
      expect(failed[0]!.exitCode).toBe(1);
      expect(failed[0]!.stdout).toBe("");
      expect(failed[0]!.stderr).toMatch(
        /^cxc: error: \S+ was already imported as conversation \S+\nhint: pass --skip-existing to import the rest, or remove it first: cxc conversation rm \S+\n$/,
      );
      expect(storeIds(home)).toHaveLength(COUNT + 1);
    }
  }, 120_000);

  it(`with --skip-existing, every conversation is imported exactly once between them (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const home = makeTempHome();
      homes.push(home);
      const source = join(home.cwd, "conversations");
      writeJpConversations(source, COUNT);
      const results = await Promise.all([
        home.run(["--format", "json", "conversation", "import", "--skip-existing", source]),
        home.run(["--format", "json", "conversation", "import", "--skip-existing", source]),
      ]);
      for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
      const outcomes = results.map(
        (result) => JSON.parse(result.stdout) as { id: string; skipped: boolean }[],
      );
      const imported = outcomes.flatMap((list) =>
        list.filter((entry) => !entry.skipped).map((entry) => entry.id),
      );
      expect(imported.sort()).toEqual(storeIds(home));
      expect(new Set(imported).size).toBe(COUNT + 1);
    }
  }, 120_000);
});
