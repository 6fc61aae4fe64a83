/**
 * The token counter the shell hands to core token accounting: gpt-tokenizer's o200k_base BPE,
 * loaded lazily (synchronously, on the first count that is not cached) because its rank table
 * costs far more to load than a command's own work, and most commands never count tokens.
 *
 * Special-token markers that appear in conversation text (`<|endoftext|>` pasted by a user) are
 * counted as ordinary text: the tokenizer would otherwise refuse to encode them.
 *
 * The cost of a count is bounded, whatever the text (a model, a tool or an import can hand in
 * megabytes without a space): BPE is quadratic in the length of a word, so a run of more than
 * `LONG_RUN` characters without whitespace is counted in pieces of that length (at most one token
 * more per cut), and of a text longer than `COUNTED_PREFIX` characters only that prefix is
 * tokenized, the rest extrapolated at the prefix's rate. Shorter texts are counted exactly.
 *
 * Counts are memoized per text: a dry run counts the same events in several projections (before
 * and after each segment, and the whole view), and BPE is the expensive part of it.
 *
 * With a `cacheDirectory` (a conversation's directory), counts also persist across runs in
 * `tokens.cache.json` there, keyed by a SHA-1 of the text. Stored events never change, so a second
 * dry run over the same conversation counts nothing and never loads the tokenizer. The cache is
 * only an accelerator: it is written atomically when the process exits and only if something new
 * was counted, a missing, unreadable or foreign cache is ignored, and deleting it is always safe.
 * The memory store hands in a cache of its own (`cache`), kept as long as the store.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { writeFileAtomic } from "./files.js";
import { nodeCrypto } from "./lazy-crypto.js";
import type { CachingTokenCounter } from "./port.js";

/** The cache file's name inside a conversation directory. */
export const TOKEN_CACHE_FILE = "tokens.cache.json";

/** Identifies what the cached counts were counted with; a cache of anything else is ignored. */
const CACHE_ENCODING = "o200k_base";
const CACHE_VERSION = 2;

/** Whitespace-free runs longer than this are tokenized in pieces of this length. */
const LONG_RUN = 256;
const LONG_RUN_PATTERN = new RegExp(`\\S{${LONG_RUN + 1},}`, "g");
/** Only this many characters of a text are tokenized; the count of the rest is extrapolated. */
export const COUNTED_PREFIX = 64 * 1024;

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

let countWithTokenizer: CountTokens | undefined;
const memo = new Map<string, number>();
const persistentCaches = new Map<string, PersistentCache>();

/** Counts of one conversation by text hash (read from its cache file, plus those counted since). */
export interface CountCache {
  readonly counts: Map<string, number>;
  changed: boolean;
}

type PersistentCache = CountCache;

/** The options of `loadTokenCounter`. */
export interface TokenCounterOptions {
  /** A conversation directory whose `tokens.cache.json` is read now and updated at exit. */
  readonly cacheDirectory?: string;
  /** A cache held by the caller (the memory store's); ignored with `cacheDirectory`. */
  readonly cache?: CountCache;
}

/** The o200k_base counter, backed by the conversation's count cache when one is named. */
export async function loadTokenCounter(options: TokenCounterOptions = {}): Promise<CachingTokenCounter> {
  const cache = options.cacheDirectory === undefined ? options.cache : openCache(options.cacheDirectory);
  const known = (text: string): number | undefined => {
    if (text.length === 0) return 0;
    const count = memo.get(text);
    if (count !== undefined || cache === undefined) return count;
    const cached = cache.counts.get(hashText(text));
    // Memoized, so counting the same text later does not hash it again.
    if (cached !== undefined) memo.set(text, cached);
    return cached;
  };
  const count = (text: string): number => {
    if (text.length === 0) return 0;
    let count = memo.get(text);
    if (count !== undefined) return count;
    const key = cache === undefined ? undefined : hashText(text);
    count = key === undefined ? undefined : cache?.counts.get(key);
    if (count === undefined) {
      count = countUncached(text);
      if (cache !== undefined && key !== undefined) {
        cache.counts.set(key, count);
        cache.changed = true;
      }
    }
    memo.set(text, count);
    return count;
  };
  return Object.assign(count, { known });
}

/** The bounded count (see the header): long runs in pieces, long texts from their prefix. */
function countUncached(text: string): number {
  const counted = text.length > COUNTED_PREFIX ? text.slice(0, COUNTED_PREFIX) : text;
  let total = 0;
  let start = 0;
  for (const run of counted.matchAll(LONG_RUN_PATTERN)) {
    total += tokenize(counted.slice(start, run.index));
    for (let offset = 0; offset < run[0].length; offset += LONG_RUN)
      total += tokenize(run[0].slice(offset, offset + LONG_RUN));
    start = run.index + run[0].length;
  }
  total += tokenize(counted.slice(start));
  return counted.length === text.length ? total : Math.ceil((total * text.length) / counted.length);
}

function tokenize(text: string): number {
  if (text.length === 0) return 0;
  if (countWithTokenizer === undefined) {
    // Synchronous on purpose: the counter is a plain function, and a cached run must not pay for
    // the tokenizer at all, so it is only loaded here, on the first miss.
    const load = createRequire(import.meta.url);
    countWithTokenizer = (load("gpt-tokenizer/encoding/o200k_base") as { countTokens: CountTokens })
      .countTokens;
  }
  return countWithTokenizer(text, { disallowedSpecial: new Set<string>() });
}

function hashText(text: string): string {
  return nodeCrypto().createHash("sha1").update(text).digest("base64url");
}

function openCache(directory: string): PersistentCache {
  const path = join(directory, TOKEN_CACHE_FILE);
  const existing = persistentCaches.get(path);
  if (existing !== undefined) return existing;
  const cache: PersistentCache = { counts: readCacheFile(path), changed: false };
  persistentCaches.set(path, cache);
  if (persistentCaches.size === 1) process.once("exit", writeChangedCaches);
  return cache;
}

function readCacheFile(path: string): Map<string, number> {
  const counts = new Map<string, number>();
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return counts;
  }
  if (typeof document !== "object" || document === null) return counts;
  const { version, encoding, counts: stored } = document as Record<string, unknown>;
  if (version !== CACHE_VERSION || encoding !== CACHE_ENCODING) return counts;
  if (typeof stored !== "object" || stored === null) return counts;
  for (const [key, value] of Object.entries(stored)) {
    if (Number.isInteger(value) && (value as number) >= 0) counts.set(key, value as number);
  }
  return counts;
}

/** Writes every cache that gained counts; a cache that cannot be written is simply not kept. */
function writeChangedCaches(): void {
  for (const [path, cache] of persistentCaches) {
    if (!cache.changed) continue;
    const document = {
      version: CACHE_VERSION,
      encoding: CACHE_ENCODING,
      counts: Object.fromEntries(cache.counts),
    };
    try {
      writeFileAtomic(path, `${JSON.stringify(document)}\n`);
      cache.changed = false;
    } catch {
      // Read-only or vanished directory: the next run counts again.
    }
  }
}

/** Writes the caches now (for tests and long-running callers; exit writes them anyway). */
export function flushTokenCaches(): void {
  writeChangedCaches();
}
