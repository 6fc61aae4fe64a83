/**
 * A log can shrink under a reader: readers take no lock, and a writer that finds a torn tail cuts
 * it off before appending. readLog must then load what is there, and must not stamp it. The race
 * is made certain here by reporting, once, a size larger than the file (as an fstat taken just
 * before the cut would).
 */
import * as fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readLog, VALIDATED_STAMP_FILE } from "../../src/store/log.js";
import { ConversationStore } from "../../src/store/store.js";
import { createEventBuilder } from "../helpers/builders.js";

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return { ...actual, fstatSync: vi.fn(actual.fstatSync) };
});

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "cxc-log-race-"));
});
afterEach(() => {
  vi.mocked(fs.fstatSync).mockReset();
  rmSync(base, { recursive: true, force: true });
});

describe("a log that shrinks while it is read", () => {
  it("loads the bytes that are there and leaves no stamp", async () => {
    const actual = await vi.importActual<typeof import("node:fs")>("node:fs");
    vi.mocked(fs.fstatSync).mockImplementation(actual.fstatSync as typeof fs.fstatSync);
    const store = new ConversationStore({ kind: "home", root: base, origin: "test" }, { CXC_HOME: base });
    const build = createEventBuilder();
    const { id } = store.create({ events: [...build.turn("one"), ...build.turn("two")] });
    const directory = join(base, "conversations", id);
    // The first fstat of the next read sees 40 more bytes than the file holds: a torn tail that a
    // writer cut off between that fstat and the read.
    vi.mocked(fs.fstatSync).mockImplementationOnce(((descriptor: number, options: fs.StatOptions) => {
      const stats = actual.fstatSync(descriptor, options as { bigint: true });
      return Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, { size: stats.size + 40n });
    }) as typeof fs.fstatSync);
    const log = readLog(directory);
    expect(log.events).toHaveLength(build.turn("x").length * 2);
    expect(log.warnings).toEqual([]);
    expect(fs.existsSync(join(directory, VALIDATED_STAMP_FILE))).toBe(false);
    // Read again, undisturbed: now it is stamped.
    readLog(directory);
    expect(fs.existsSync(join(directory, VALIDATED_STAMP_FILE))).toBe(true);
  });
});
