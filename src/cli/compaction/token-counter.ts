/**
 * The token counter the shell hands to core token accounting: gpt-tokenizer's o200k_base BPE,
 * loaded lazily because its rank table costs tens of milliseconds to load and most commands never
 * count tokens.
 *
 * Special-token markers that appear in conversation text (`<|endoftext|>` pasted by a user) are
 * counted as ordinary text: the tokenizer would otherwise refuse to encode them.
 *
 * Counts are memoized per text: a dry run counts the same events in several projections (before
 * and after each segment, and the whole view), and BPE is the expensive part of it.
 */
import type { TokenCounter } from "../../core/tokens.js";

let counter: TokenCounter | undefined;

/** The shared o200k_base counter, loaded on first use. */
export async function loadTokenCounter(): Promise<TokenCounter> {
  if (counter !== undefined) return counter;
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const options = { disallowedSpecial: new Set<string>() };
  const memo = new Map<string, number>();
  counter = (text: string) => {
    if (text.length === 0) return 0;
    let count = memo.get(text);
    if (count === undefined) {
      count = countTokens(text, options);
      memo.set(text, count);
    }
    return count;
  };
  return counter;
}
