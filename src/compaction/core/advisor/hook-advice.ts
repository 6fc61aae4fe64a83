/**
 * The advisor's word inside an agent whose compaction only the user can start (Claude Code's
 * `/compact`): the tier line, and the focus instructions cxc suggests typing after `/compact`
 * (what to keep, and where the live work starts, quoted from the user's request). Pure.
 */
import type { RangeFacts } from "../summary/range-facts.js";

/** The most characters the suggested `/compact` line may have. */
export const FOCUS_CHARACTERS = 600;
/** The most characters of the user's request quoted as where the live work starts. */
const QUOTE_CHARACTERS = 120;

/** The user's request, flattened and cut to a quotable length. */
export function quoteRequest(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= QUOTE_CHARACTERS ? flat : `${flat.slice(0, QUOTE_CHARACTERS - 1)}…`;
}

/**
 * `/compact Keep the user's instructions verbatim: "…"; keep the list of files modified: a, b.
 * The live work starts at the request "…": keep it and everything after it in full.` Within
 * `maxCharacters`: files go first (oldest first), then sentences (newest first), as in
 * `renderRangeFacts`. Undefined when there is nothing to say.
 */
export function compactFocus(
  facts: Pick<RangeFacts, "filesModified" | "bindingSentences">,
  liveFrom: string | undefined,
  maxCharacters = FOCUS_CHARACTERS,
): string | undefined {
  const sentences = facts.bindingSentences.map((sentence) => sentence.text.replace(/\s+/g, " ").trim());
  const files = [...facts.filesModified];
  const live =
    liveFrom === undefined
      ? undefined
      : `The live work starts at the request "${quoteRequest(liveFrom)}": keep it and everything after it in full.`;
  const compose = (): string | undefined => {
    const keep: string[] = [];
    if (sentences.length > 0)
      keep.push(`the user's instructions verbatim: ${sentences.map((text) => `"${text}"`).join(" ")}`);
    if (files.length > 0) keep.push(`the list of files modified: ${files.join(", ")}`);
    const parts = [keep.length > 0 ? `Keep ${keep.join("; keep ")}.` : undefined, live].filter(
      (part): part is string => part !== undefined,
    );
    return parts.length === 0 ? undefined : `/compact ${parts.join(" ")}`;
  };
  for (;;) {
    const line = compose();
    if (line === undefined || line.length <= maxCharacters) return line;
    if (files.length > 0) files.shift();
    else if (sentences.length > 0) sentences.pop();
    else return line.slice(0, maxCharacters);
  }
}

/**
 * The message shown to the user: the advisor's lines (`renderAdvice`: the tier, the live count,
 * the reason), then the `/compact` line to type, then any notes (a failure told once, `token
 * lines only`).
 */
export function renderHookAdvice(
  advice: readonly string[],
  focus: string | undefined,
  notes: readonly string[] = [],
): string {
  const lines = advice.map((line) => `cxc ${line}`);
  if (focus !== undefined) lines.push(`To compact, type: ${focus}`);
  lines.push(...notes);
  return lines.join("\n");
}
