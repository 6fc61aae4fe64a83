/**
 * The conversations a command that takes several acts on (jp's positional targets): ids or
 * unique prefixes, the keywords the store knows (`active`, `.`, `recent`), and `-`, which reads
 * ids from standard input, one per line, blank lines skipped (an error when stdin is a terminal).
 * No argument means the active conversation. Every target is resolved before anything runs, so
 * one bad target changes nothing; a conversation named twice is acted on once.
 */
import { usageError } from "../errors.js";
import type { CliContext } from "./context.js";

export async function resolveTargets(context: CliContext, targets: readonly string[]): Promise<string[]> {
  if (targets.length === 0) return [context.store.resolveTarget(undefined)];
  const words: string[] = [];
  for (const target of targets) {
    if (target !== "-") {
      words.push(target);
      continue;
    }
    if (context.stdinIsTerminal) {
      throw usageError(
        "`-` reads conversation ids from standard input, which is a terminal",
        "pipe them in, one per line",
      );
    }
    words.push(
      ...(await context.readStdin())
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    );
  }
  if (words.length === 0) {
    throw usageError("`-` read no conversation ids from standard input", "pipe the ids in, one per line");
  }
  return [...new Set(words.map((word) => context.store.resolveTarget(word)))];
}
