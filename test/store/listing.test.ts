/**
 * The listing cache: `ls` reads only the metadata that changed, and the cache can never show a
 * stale title, a removed conversation, or break the listing when damaged.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LISTING_CACHE_FILE, listConversations } from "../../src/store/listing.js";
import { readMeta, writeMeta } from "../../src/store/meta.js";
import { ConversationStore } from "../../src/store/store.js";

let root: string;
let store: ConversationStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "cxc-listing-"));
  store = new ConversationStore({ kind: "home", root, origin: "test" }, { CXC_HOME: root });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Sets a conversation's meta.json a minute into the past, so the listing may cache it. */
function age(id: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(root, "conversations", id, "meta.json"), past, past);
}

const titles = () =>
  listConversations(root)
    .conversations.map((entry) => entry.meta.title)
    .sort();

describe("listConversations with its cache", () => {
  it("writes a cache and sees every later change of a meta.json", () => {
    const first = store.create({ title: "one" });
    age(first.id);
    age(store.create({ title: "two" }).id);
    expect(titles()).toEqual(["one", "two"]);
    const cache = join(root, LISTING_CACHE_FILE);
    expect(existsSync(cache)).toBe(true);
    const directory = join(root, "conversations", first.id);
    writeMeta(directory, { ...readMeta(directory), title: "renamed, and longer" });
    expect(titles()).toEqual(["renamed, and longer", "two"]);
  });

  it("drops removed conversations and lists new ones", async () => {
    const first = store.create({ title: "one" });
    store.create({ title: "two" });
    expect(titles()).toEqual(["one", "two"]);
    await store.remove(first.id);
    store.create({ title: "three" });
    expect(titles()).toEqual(["three", "two"]);
  });

  it("ignores a damaged or foreign cache file", () => {
    age(store.create({ title: "one" }).id);
    expect(titles()).toEqual(["one"]);
    const cache = join(root, LISTING_CACHE_FILE);
    for (const content of ["{not json", JSON.stringify({ version: 99, entries: {} }), "null"]) {
      writeFileSync(cache, content);
      expect(titles()).toEqual(["one"]);
    }
  });

  it("uses a cache entry while its meta.json keeps size and time, and only then", () => {
    const first = store.create({ title: "one" });
    const directory = join(root, "conversations", first.id);
    // Files changed in the last moments are never cached (their times tick coarsely): age it.
    age(first.id);
    expect(titles()).toEqual(["one"]);
    const cache = join(root, LISTING_CACHE_FILE);
    const document = JSON.parse(readFileSync(cache, "utf8"));
    document.entries[first.id].meta.title = "from the cache";
    writeFileSync(cache, JSON.stringify(document));
    // Same stats: the cached metadata is used (the file is not read again).
    expect(titles()).toEqual(["from the cache"]);
    // Same size ("one" → "uno"): only the time tells them apart.
    writeMeta(directory, { ...readMeta(directory), title: "uno" });
    expect(titles()).toEqual(["uno"]);
  });

  it("caches each review record with its metadata, and reads a record that is damaged as a warning", () => {
    store.create({ id: "source-a" });
    store.create({ id: "review-a", reviewOf: "source-a" });
    age("source-a");
    age("review-a");
    const reviews = () =>
      Object.fromEntries(listConversations(root).conversations.map((entry) => [entry.meta.id, entry.review]));
    expect(reviews()).toEqual({ "source-a": undefined, "review-a": { source: "source-a" } });
    const document = JSON.parse(readFileSync(join(root, LISTING_CACHE_FILE), "utf8"));
    expect(document.entries["review-a"].review).toEqual({ source: "source-a" });
    // The cached entry is what the next listing uses (the record is not read again).
    document.entries["review-a"].review = { source: "from the cache" };
    writeFileSync(join(root, LISTING_CACHE_FILE), JSON.stringify(document));
    expect(reviews()["review-a"]).toEqual({ source: "from the cache" });
    // A damaged record: the conversation is still listed, with a warning naming the file.
    rmSync(join(root, LISTING_CACHE_FILE));
    writeFileSync(join(root, "conversations", "review-a", "review.json"), "{not json");
    const listing = listConversations(root);
    expect(listing.conversations.map((entry) => entry.meta.id).sort()).toEqual(["review-a", "source-a"]);
    expect(listing.warnings).toEqual([expect.stringMatching(/review\.json:\d+:\d+: not valid JSON/)]);
  });

  it("never caches a meta.json written moments ago, so a same-size rewrite in the same tick is seen", () => {
    const first = store.create({ title: "one" });
    expect(titles()).toEqual(["one"]);
    const directory = join(root, "conversations", first.id);
    writeMeta(directory, { ...readMeta(directory), title: "uno" });
    expect(titles()).toEqual(["uno"]);
  });
});
