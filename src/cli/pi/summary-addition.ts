/**
 * What cxc adds to pi's summary after pi compacts: the facts block `cxc conversation compact -s`
 * puts after its summaries (compaction/core/summary/range-facts.ts), built from the raw turns the summary
 * replaces: the user's binding sentences verbatim and the files read and modified, exactly. pi's
 * own file lists are part of the summary, so a file pi's summary already names is not listed again.
 * Pure.
 */
import { DEFAULT_FACTS_CHARACTERS } from "../../compaction/core/keeping.js";
import type { CycleRange } from "../../core/conversation/cycles.js";
import { selectRange } from "../../core/conversation/cycles.js";
import type { Turn } from "../../core/conversation/turns.js";
import { extractRangeFacts, renderRangeFacts } from "../../compaction/core/summary/range-facts.js";

/** The heading of cxc's section in pi's summary. */
const PI_FACTS_HEADING = "## cxc: facts of the compacted turns, from their raw events";

/** The section to append to pi's summary, or undefined when there is nothing it does not already hold. */
export function factsAddition(
  turns: readonly Turn[],
  range: CycleRange,
  summary: string,
  cwd?: string,
): string | undefined {
  const facts = extractRangeFacts(selectRange(turns, range), cwd === undefined ? {} : { cwd });
  const unnamed = (path: string) => !summary.includes(path);
  const rendered = renderRangeFacts(
    {
      filesRead: facts.filesRead.filter(unnamed),
      filesModified: facts.filesModified.filter(unnamed),
      bindingSentences: facts.bindingSentences,
    },
    { maxCharacters: DEFAULT_FACTS_CHARACTERS, heading: PI_FACTS_HEADING },
  );
  return rendered.text === "" ? undefined : `\n\n${rendered.text}`;
}
