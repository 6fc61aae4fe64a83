/**
 * The token counter the shell hands to core token accounting: gpt-tokenizer's o200k_base BPE,
 * loaded lazily because its rank table costs tens of milliseconds to load and most commands never
 * count tokens.
 *
 * Special-token markers that appear in conversation text (`<|endoftext|>` pasted by a user) are
 * counted as ordinary text: the tokenizer would otherwise refuse to encode them.
 */
import type { TokenCounter } from "../../core/tokens.js";

let counter: TokenCounter | undefined;

/** The shared o200k_base counter, loaded on first use. */
export async function loadTokenCounter(): Promise<TokenCounter> {
  if (counter !== undefined) return counter;
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const options = { disallowedSpecial: new Set<string>() };
  counter = (text: string) => (text.length === 0 ? 0 : countTokens(text, options));
  return counter;
}
