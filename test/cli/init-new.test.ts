import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";

let home: TempHome;
afterEach(() => home?.cleanup());

describe("cxc init and conversation new", () => {
  it("creates a conversation with a versioned header and makes it active", async () => {
    home = makeTempHome();
    const result = await home.run(["--format", "json", "conversation", "new", "--title", "First"]);
    expect(result.exitCode).toBe(0);
    const { id } = JSON.parse(result.stdout) as { id: string };
    const directory = join(home.home, "conversations", id);
    const [header] = readFileSync(join(directory, "events.jsonl"), "utf8").split("\n");
    expect(JSON.parse(header!)).toMatchObject({ cxc: "conversation-log", version: 1, id });
    expect(JSON.parse(readFileSync(join(directory, "meta.json"), "utf8"))).toMatchObject({
      id,
      title: "First",
    });
    expect(JSON.parse(readFileSync(join(home.home, "sessions", "default.json"), "utf8"))).toEqual({
      active: id,
      activated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("init creates a workspace that new conversations go into", async () => {
    home = makeTempHome();
    const init = await home.run(["init", "project"]);
    expect(init.exitCode).toBe(0);
    const workspace = join(home.cwd, "..", "project", ".cxc");
    expect(existsSync(workspace)).toBe(true);
    const created = await home.run(["--format", "json", "c", "new"], {
      cwd: join(home.cwd, "..", "project"),
    });
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(existsSync(join(workspace, "conversations", id, "events.jsonl"))).toBe(true);
    expect(existsSync(join(home.home, "conversations", id))).toBe(false);
  });

  it("rejects an unknown command with exit code 2 and one error line", async () => {
    home = makeTempHome();
    const result = await home.run(["conversation", "frobnicate"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^cxc: error: unknown command 'frobnicate'/m);
  });
});
