/**
 * The compaction environment of a command (src/compaction/environment.ts), built once per
 * process from the command's configuration: notices and warnings through the CLI's prefixes, a
 * progress spinner while a model writes, the store's token counters.
 */
import { type CompactionEnvironment, createCompactionEnvironment } from "../../compaction/environment.js";
import { loadConfig } from "../config.js";
import type { CliContext } from "../context.js";
import { startProgress } from "./progress.js";
import { conversationOverhead } from "../../query/request-overhead.js";

/** How a command reports and what it keeps of the summaries it writes. */
export interface CommandCompaction {
  /** No notices and no progress: only a failed summary model is said (`fork -k`). */
  readonly quiet?: boolean;
  /** A private copy of each summary (`compact`, the review's draft). */
  readonly copies?: boolean;
  /** The summary check of each summary written (`compact`). */
  readonly checkLosses?: boolean;
  /** Say the configuration's warnings (default: unless quiet). */
  readonly configWarnings?: boolean;
}

/** The environment of the command of `context`; the configuration's warnings are said once. */
export function commandCompaction(
  context: CliContext,
  options: CommandCompaction = {},
): CompactionEnvironment {
  const config = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
  if (options.configWarnings ?? !options.quiet) for (const warning of config.warnings) context.warn(warning);
  return createCompactionEnvironment({
    config: config.values,
    env: context.env,
    report: options.quiet
      ? { info: () => undefined, warn: (text) => context.warn(text) }
      : {
          info: (text) => context.info(text),
          warn: (text) => context.warn(text),
          progress: (label) => startProgress(process.stderr, label),
        },
    // Token counts are cached with the conversation (in the file store, tokens.cache.json beside
    // the log, safe to delete), so a repeated preview does not tokenize it all again.
    counter: (id) => context.store.tokenCounter(id),
    ...(options.copies ? { copies: true } : {}),
    ...(options.checkLosses ? { checkLosses: true } : {}),
    // Only a native summary needs it.
    overhead: async (events) => conversationOverhead(events, config.values, context.env),
  });
}
