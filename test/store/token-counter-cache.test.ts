/**
 * The persistent token-count cache behind `compact --dry-run`: counts are written to
 * `tokens.cache.json`, read back by the next run, and a missing, corrupt or foreign cache is
 * ignored (the cache can only speed counting up, never change a count it did not store).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  COUNTED_PREFIX,
  flushTokenCaches,
  loadTokenCounter,
  TOKEN_CACHE_FILE,
} from "../../src/store/token-counter.js";

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "cxc-token-cache-"));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const hash = (text: string) => createHash("sha1").update(text).digest("base64url");
const writeCache = (directory: string, document: unknown) =>
  writeFileSync(join(directory, TOKEN_CACHE_FILE), JSON.stringify(document));

describe("token counter cache", () => {
  it("writes the counts it computed and nothing when nothing new was counted", async () => {
    const directory = temporaryDirectory();
    const count = await loadTokenCounter({ cacheDirectory: directory });
    const text = "write test: hello world, how are you today?";
    const tokens = count(text);
    expect(tokens).toBeGreaterThan(5);
    flushTokenCaches();
    const document = JSON.parse(readFileSync(join(directory, TOKEN_CACHE_FILE), "utf8"));
    expect(document).toEqual({ version: 2, encoding: "o200k_base", counts: { [hash(text)]: tokens } });
    rmSync(join(directory, TOKEN_CACHE_FILE));
    flushTokenCaches();
    expect(() => readFileSync(join(directory, TOKEN_CACHE_FILE))).toThrow();
  });

  it("answers from the cache file instead of counting", async () => {
    const directory = temporaryDirectory();
    const text = "read test: a sentence whose count is planted in the cache";
    writeCache(directory, { version: 2, encoding: "o200k_base", counts: { [hash(text)]: 4242 } });
    const count = await loadTokenCounter({ cacheDirectory: directory });
    expect(count(text)).toBe(4242);
  });

  it("ignores a corrupt cache, one of another encoding and malformed counts", async () => {
    const corrupt = temporaryDirectory();
    writeFileSync(join(corrupt, TOKEN_CACHE_FILE), "{not json");
    const foreign = temporaryDirectory();
    const malformed = temporaryDirectory();
    const texts = ["ignore test one two three", "ignore test four five six", "ignore test seven eight"];
    writeCache(foreign, { version: 2, encoding: "cl100k_base", counts: { [hash(texts[1]!)]: 4242 } });
    writeCache(malformed, { version: 2, encoding: "o200k_base", counts: { [hash(texts[2]!)]: -1 } });
    // Counted through the caches first (counts are memoized per process): a planted 4242 or -1
    // would show up here.
    const counted = [
      (await loadTokenCounter({ cacheDirectory: corrupt }))(texts[0]!),
      (await loadTokenCounter({ cacheDirectory: foreign }))(texts[1]!),
      (await loadTokenCounter({ cacheDirectory: malformed }))(texts[2]!),
    ];
    expect(counted.every((tokens) => tokens > 0 && tokens < 20)).toBe(true);
  });
});

describe("the cost of a count is bounded", () => {
  const raw = (load: NodeJS.Require) =>
    (load("gpt-tokenizer/encoding/o200k_base") as { countTokens: (text: string) => number }).countTokens;
  const tokenize = raw(createRequire(import.meta.url));

  it("counts ordinary text exactly, as the tokenizer does", async () => {
    const count = await loadTokenCounter();
    const prose = "The quick brown fox jumps over the lazy dog; ünïcödé and 😀 too.\n".repeat(900);
    expect(prose.length).toBeLessThan(COUNTED_PREFIX);
    expect(count(prose)).toBe(tokenize(prose));
  });

  it("counts a run without whitespace in pieces, and a long text from its prefix", async () => {
    const count = await loadTokenCounter();
    // One "word" of a megabyte: BPE on it whole would take hours.
    const run = "y".repeat(1_000_000);
    const piece = "y".repeat(256);
    const prefixCount = (COUNTED_PREFIX / 256) * tokenize(piece);
    expect(count(run)).toBe(Math.ceil((prefixCount * run.length) / COUNTED_PREFIX));
    const blob = `data: ${"ab".repeat(200)} end`;
    expect(count(blob)).toBe(
      tokenize("data: ") + tokenize("ab".repeat(128)) + tokenize("ab".repeat(72)) + tokenize(" end"),
    );
  });
});
