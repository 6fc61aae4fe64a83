/**
 * Seeding and inspecting a temporary store for the conversation command tests: conversations are
 * written through the real store (so files look exactly as cxc writes them), then the built CLI is
 * run against them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { VALIDATED_STAMP_FILE } from "../../src/store/log.js";
import type { ConversationMeta } from "../../src/store/index.js";
import { readMeta, writeMeta } from "../../src/store/meta.js";
import { ConversationStore } from "../../src/store/store.js";
import type { TempHome } from "../helpers/cli.js";

/** The store the CLI sees for this home (no workspace, default session). */
export function openStore(home: TempHome): ConversationStore {
  return new ConversationStore({ kind: "home", root: home.home, origin: "test" }, { CXC_HOME: home.home });
}

export interface SeedOptions {
  id: string;
  title?: string;
  events?: readonly ConversationEvent[];
  createdAt?: string;
  updatedAt?: string;
  pinnedAt?: string;
  archived?: boolean;
  active?: boolean;
}

/** Writes one conversation and returns its metadata as stored. */
export async function seedConversation(home: TempHome, options: SeedOptions): Promise<ConversationMeta> {
  const store = openStore(home);
  const createdAt = options.createdAt ?? "2026-01-01T00:00:00.000Z";
  const meta = store.create({
    id: options.id,
    createdAt,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.events === undefined ? {} : { events: options.events }),
  });
  const directory = join(home.home, "conversations", options.id);
  const updated: ConversationMeta = {
    ...meta,
    updated_at: options.updatedAt ?? createdAt,
    ...(options.pinnedAt === undefined ? {} : { pinned_at: options.pinnedAt }),
  };
  writeMeta(directory, updated);
  if (options.archived) await store.archive(options.id, "2026-02-01T00:00:00.000Z");
  if (options.active) store.setActive(options.id);
  return updated;
}

/** The metadata of a conversation as it is on disk now. */
export function metaOf(home: TempHome, id: string, archived = false): ConversationMeta {
  return readMeta(join(home.home, archived ? "archive" : "conversations", id));
}

/**
 * The source a review conversation records (`review.json`), or undefined for a conversation that
 * is not a review. Reviews no longer write `compaction_source` into their metadata.
 */
export function reviewSourceOf(home: TempHome, id: string, archived = false): string | undefined {
  const directory = join(home.home, archived ? "archive" : "conversations", id);
  if (readMeta(directory).compaction_source !== undefined)
    throw new Error(`${id}: compaction_source in meta.json`);
  const path = join(directory, "review.json");
  if (!existsSync(path)) return undefined;
  return (JSON.parse(readFileSync(path, "utf8")) as { source: string }).source;
}

/** Every file under `directory` with its content (caches aside), to assert that a command changed nothing. */
export function snapshotTree(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(current);
    } catch {
      return;
    }
    for (const name of entries) {
      // A log's validation stamp is a cache any load may write (src/store/log.ts), not data.
      if (name === VALIDATED_STAMP_FILE) continue;
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        files[`${relative(directory, path)}/`] = "<dir>";
        walk(path);
      } else {
        files[relative(directory, path)] = readFileSync(path, "utf8");
      }
    }
  };
  walk(directory);
  return files;
}

/** Asserts the shape every failure must have: one `cxc: error:` line, then one `hint:` line. */
export function errorLines(stderr: string): { error: string; hint: string | undefined } {
  const lines = stderr.trimEnd().split("\n");
  const errors = lines.filter((line) => line.startsWith("cxc: error: "));
  if (errors.length !== 1) throw new Error(`expected exactly one error line, got:\n${stderr}`);
  if (lines.some((line) => /^\s+at /.test(line))) throw new Error(`stack trace printed:\n${stderr}`);
  const hint = lines.find((line) => line.startsWith("hint: "));
  return { error: errors[0]!.slice("cxc: error: ".length), hint: hint?.slice("hint: ".length) };
}
