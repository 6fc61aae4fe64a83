/**
 * Listing conversations from their metadata alone. Kept apart from store.ts so that
 * `cxc conversation ls` loads no event-log code (and so no schema library) at start-up.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type ConversationMeta, readMeta } from "./meta.js";
import { archiveDirectory, conversationsDirectory, type Environment } from "./paths.js";
import { readActive } from "./session.js";

export interface ListedConversation {
  readonly meta: ConversationMeta;
  readonly archived: boolean;
}

export interface ConversationListing {
  readonly conversations: ListedConversation[];
  /** One sentence per conversation whose metadata could not be read (it is left out). */
  readonly warnings: string[];
}

/** Metadata of live (or archived) conversations, newest activity first. */
export function listConversations(root: string, options: { archived?: boolean } = {}): ConversationListing {
  const archived = options.archived ?? false;
  const base = archived ? archiveDirectory(root) : conversationsDirectory(root);
  const conversations: ListedConversation[] = [];
  const warnings: string[] = [];
  for (const id of listDirectory(base)) {
    try {
      conversations.push({ meta: readMeta(join(base, id)), archived });
    } catch (error) {
      warnings.push((error as Error).message);
    }
  }
  conversations.sort((a, b) =>
    a.meta.updated_at < b.meta.updated_at ? 1 : a.meta.updated_at > b.meta.updated_at ? -1 : 0,
  );
  return { conversations, warnings };
}

/** The session's active conversation id, if any. */
export function activeConversation(root: string, env: Environment): string | undefined {
  return readActive(root, env);
}

/** Names of the conversation directories below `directory` (dot entries skipped). */
export function listDirectory(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
