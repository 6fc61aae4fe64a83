/**
 * The real jp workspaces the tests read. `fixtures/jp-workspace` is a small subset committed with
 * the project (seven conversations, one archived), so every clone tests on real jp data; the full
 * 21-conversation workspace in `../shared/fixtures/jp-workspace` is an extra when it is present.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface JpWorkspace {
  /** `committed` or `shared`, for test names. */
  readonly name: "committed" | "shared";
  /** The workspace folder (the one holding `.jp/`). */
  readonly root: string;
  /** Its `.jp/conversations` folder. */
  readonly conversations: string;
}

function workspace(name: JpWorkspace["name"], root: string): JpWorkspace {
  return { name, root, conversations: join(root, ".jp", "conversations") };
}

/** The workspace committed with the project; always present. */
export const COMMITTED_JP_WORKSPACE = workspace(
  "committed",
  fileURLToPath(new URL("../../fixtures/jp-workspace", import.meta.url)),
);

const sharedRoot = fileURLToPath(new URL("../../../shared/fixtures/jp-workspace", import.meta.url));

/** The full workspace beside the project, when it is there. */
export const SHARED_JP_WORKSPACE: JpWorkspace | undefined = existsSync(
  join(sharedRoot, ".jp", "conversations"),
)
  ? workspace("shared", sharedRoot)
  : undefined;

/** Every workspace to test on: the committed one, then the full one when present. */
export const JP_WORKSPACES: readonly JpWorkspace[] = [
  COMMITTED_JP_WORKSPACE,
  ...(SHARED_JP_WORKSPACE === undefined ? [] : [SHARED_JP_WORKSPACE]),
];

/** Says once per test file that the full workspace is absent (the committed one still runs). */
export function noticeMissingSharedWorkspace(what: string): void {
  if (SHARED_JP_WORKSPACE === undefined) {
    console.log(
      `notice: ../shared/fixtures/jp-workspace is absent; ${what} runs on the committed subset only`,
    );
  }
}

/** One conversation folder of a workspace. */
export interface JpConversationDirectory {
  readonly name: string;
  readonly path: string;
  readonly archived: boolean;
}

/** The conversation folders of a workspace, live ones first, then archived, each sorted by name. */
export function jpConversationDirectories(jp: JpWorkspace): JpConversationDirectory[] {
  const archive = join(jp.conversations, ".archive");
  const live = readdirSync(jp.conversations)
    .filter((name) => !name.startsWith("."))
    .sort()
    .map((name) => ({ name, path: join(jp.conversations, name), archived: false }));
  const archived = existsSync(archive)
    ? readdirSync(archive)
        .sort()
        .map((name) => ({ name, path: join(archive, name), archived: true }))
    : [];
  return [...live, ...archived].filter((directory) => existsSync(join(directory.path, "events.json")));
}
