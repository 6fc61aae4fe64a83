/**
 * A conversation started by `cxc q --new` or brought in with `import -` (a messages array) is
 * titled by the first line of its first message, as an imported agent session is; `--title`
 * still wins on import.
 */
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

async function titleOf(id: string): Promise<string | null> {
  const shown = await home.home.run(["--format", "json", "conversation", "show", id]);
  return JSON.parse(shown.stdout).title;
}

describe("titles from the first message", () => {
  it("q --new takes the first line of the message", async () => {
    provider.enqueue(textReply("On it."));
    const result = await home.q(["--new", "-"], {
      input: "\n  Fix the flaky parser test  \nIt fails one run in ten.\n",
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await titleOf(home.activeId())).toBe("Fix the flaky parser test");
  });

  it("import - takes the first user message's first line; --title wins", async () => {
    const messages = JSON.stringify([
      { role: "system", content: "Be brief." },
      { role: "user", content: `Why does ${"the build ".repeat(12)}fail?\nDetails follow.` },
      { role: "assistant", content: "Because." },
    ]);
    const imported = await home.home.run(["--format", "json", "conversation", "import", "-"], {
      input: messages,
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const { id } = (JSON.parse(imported.stdout) as { id: string }[])[0]!;
    const title = await titleOf(id);
    expect(title).toMatch(/^Why does the build the build .*…$/);
    expect([...title!].length).toBe(80);
    const named = await home.home.run(
      ["--format", "json", "conversation", "import", "-", "--title", "Mine"],
      {
        input: messages,
      },
    );
    expect(await titleOf((JSON.parse(named.stdout) as { id: string }[])[0]!.id)).toBe("Mine");
  });
});
