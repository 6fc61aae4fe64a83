/**
 * The lock as a user meets it: a cxc command against a conversation another process is writing
 * waits, then fails with one line naming the holder and a hint, and exit code 1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { bundleStore, type StoreBundle } from "./helpers/bundle-store.js";
import { startWriter } from "./helpers/child.js";

let bundle: StoreBundle;
let home: TempHome;

beforeAll(async () => {
  bundle = await bundleStore();
});
afterAll(() => bundle?.remove());
afterEach(() => home?.cleanup());

describe("lock contention at the command line", () => {
  it("names the holder after CXC_LOCK_TIMEOUT_MS and exits 1", async () => {
    home = makeTempHome();
    const created = await home.run(["--format", "json", "conversation", "new", "--title", "Busy"]);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const holder = startWriter(["hold-lock", bundle.modulePath, home.home, id, "20000"]);
    try {
      await holder.waitForLine((line) => line === "locked");
      const started = performance.now();
      const result = await home.run(["conversation", "archive", id], { env: { CXC_LOCK_TIMEOUT_MS: "300" } });
      const elapsed = performance.now() - started;
      expect(result.exitCode).toBe(1);
      const lines = result.stderr.trimEnd().split("\n");
      expect(lines[0]).toMatch(
        new RegExp(
          `^cxc: error: conversation ${id} is locked by test holder \\(pid ${holder.process.pid}, since `,
        ),
      );
      expect(lines[1]).toMatch(
        /^hint: wait for it to finish and try again; if that process is gone, remove .*\.lock$/,
      );
      expect(lines).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(300);
    } finally {
      holder.process.kill("SIGKILL");
      await holder.exited;
    }
    // The holder is gone (killed): its lock is stale and the same command now succeeds.
    const retry = await home.run(["conversation", "archive", id], { env: { CXC_LOCK_TIMEOUT_MS: "300" } });
    expect(retry.exitCode).toBe(0);
    const listed = await home.run(["--format", "json", "conversation", "ls", "--archived"]);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((entry) => entry.id)).toEqual([id]);
  });
});
