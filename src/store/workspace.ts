/**
 * Workspace creation (`cxc init`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { unreadable } from "./files.js";
import { conversationsDirectory, WORKSPACE_DIRECTORY } from "./paths.js";

export function initWorkspace(directory: string, cwd: string): { path: string; created: boolean } {
  const path = join(resolve(cwd, directory), WORKSPACE_DIRECTORY);
  if (existsSync(path)) return { path, created: false };
  try {
    mkdirSync(conversationsDirectory(path), { recursive: true });
    writeFileSync(join(path, ".gitignore"), "locks/\nsessions/\ncache/\n");
  } catch (error) {
    throw unreadable(path, error);
  }
  return { path, created: true };
}
