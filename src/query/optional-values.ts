/**
 * `-k[=SPEC]` and `--fork[=N]` take a value only when it is attached (`-k=r+t`, `-kr`,
 * `--compact=r`, `--fork=3`). Commander's optional values also swallow the next word, which would
 * make `cxc q -k "summarize this"` read the message as a SPEC. This module reads the raw arguments
 * to tell attached values from swallowed words and gives the swallowed words back to the message.
 */

/** What the raw arguments say about the optional-value flags. */
export interface OptionalValueFlags {
  /** One entry per `-k`/`--compact`: `true` when bare, else the attached SPEC. */
  readonly compact: (true | string)[];
  /** `--fork`: `true` when bare, the attached text otherwise, undefined when absent. */
  readonly fork?: true | string;
  /** Words commander took as a value of a bare flag; they belong to the message. */
  readonly swallowed: string[];
}

const COMPACT_FLAGS = new Set(["-k", "--compact"]);

/** Scans the raw arguments (after the command name is fine; stops at `--`). */
export function scanOptionalValueFlags(rawArguments: readonly string[]): OptionalValueFlags {
  const compact: (true | string)[] = [];
  const swallowed: string[] = [];
  let fork: true | string | undefined;
  for (let position = 0; position < rawArguments.length; position++) {
    const argument = rawArguments[position]!;
    if (argument === "--") break;
    const next = rawArguments[position + 1];
    // Commander gives a bare optional flag the next word unless that word looks like an option.
    const takesNext = next !== undefined && (next === "-" || !next.startsWith("-"));
    if (COMPACT_FLAGS.has(argument) || argument === "--fork") {
      if (argument === "--fork") fork = true;
      else compact.push(true);
      if (takesNext) {
        swallowed.push(next);
        position += 1;
      }
    } else if (argument.startsWith("--compact=")) {
      compact.push(argument.slice("--compact=".length));
    } else if (argument.startsWith("--fork=")) {
      fork = argument.slice("--fork=".length);
    } else if (/^-k./.test(argument)) {
      compact.push(argument.slice(2).replace(/^=/, ""));
    }
  }
  return fork === undefined ? { compact, swallowed } : { compact, fork, swallowed };
}

/**
 * The message words in command-line order: commander's positional words plus the swallowed ones,
 * ordered by where they appear in the raw arguments.
 */
export function restoreMessageWords(
  rawArguments: readonly string[],
  positional: readonly string[],
  swallowed: readonly string[],
): string[] {
  if (swallowed.length === 0) return [...positional];
  const remaining = new Map<string, number>();
  for (const word of [...positional, ...swallowed]) remaining.set(word, (remaining.get(word) ?? 0) + 1);
  const words: string[] = [];
  for (const argument of rawArguments) {
    const count = remaining.get(argument) ?? 0;
    if (count === 0) continue;
    remaining.set(argument, count - 1);
    words.push(argument);
  }
  return words;
}
