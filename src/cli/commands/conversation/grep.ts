/**
 * `cxc conversation grep PATTERN [--archived] [-i]`: finds a literal text in user messages,
 * assistant messages and tool output across conversations. Prints `id  turn N  <excerpt>` per
 * matching line (sanitized), or a JSON array with `--format json`. Exits 1 when nothing matched,
 * like grep, so scripts can branch on it. A conversation that cannot be read is skipped with a
 * warning rather than ending the search.
 */
import type { Command } from "commander";
import type { ConversationEvent } from "../../../core/conversation/events.js";
import { CxcError } from "../../../errors.js";
import { CliContext } from "../../context.js";
import { findMatches } from "../../render/excerpt.js";
import { assignTurnIndices } from "../../../core/conversation/turns.js";

interface GrepOptions {
  readonly archived?: boolean;
  readonly ignoreCase?: boolean;
}

/** Which part of a conversation a hit is in. */
type HitKind = "user" | "assistant" | "tool_output";

interface Hit {
  readonly id: string;
  readonly title: string | null;
  readonly archived: boolean;
  readonly turn: number;
  readonly kind: HitKind;
  readonly event_id: string;
  readonly line: number;
  readonly excerpt: string;
}

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("search messages and tool output across conversations (literal text)")
    .argument("<PATTERN>", "the text to look for")
    .option("--archived", "search archived conversations too")
    .option("-i, --ignore-case", "ignore upper/lower case")
    .action(async (pattern: string, options: GrepOptions, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      if (pattern === "")
        throw new CxcError("usage", "the search pattern is empty", { hint: "e.g. grep 'TODO'" });
      const listed = [
        ...context.store.list().conversations,
        ...(options.archived ? context.store.list({ archived: true }).conversations : []),
      ];
      const hits: Hit[] = [];
      for (const { meta, archived } of listed) {
        let events: readonly ConversationEvent[];
        try {
          events = context.store.load(meta.id).events;
        } catch (error) {
          context.warn(`skipped ${meta.id}: ${(error as Error).message}`);
          continue;
        }
        const indices = assignTurnIndices(events);
        events.forEach((event, position) => {
          const searchable = searchableText(event);
          if (!searchable || event.type === "unknown") return;
          for (const match of findMatches(searchable.text, pattern, {
            ignoreCase: options.ignoreCase ?? false,
          })) {
            hits.push({
              id: meta.id,
              title: meta.title ?? null,
              archived,
              turn: indices[position]! + 1,
              kind: searchable.kind,
              event_id: event.id,
              line: match.line,
              excerpt: match.excerpt,
            });
          }
        });
      }
      if (format === "json") context.outJson(hits);
      else for (const hit of hits) context.out(`${hit.id}  turn ${hit.turn}  ${hit.excerpt}`);
      if (hits.length === 0) {
        if (format === "text") context.info("No matches.");
        process.exitCode = 1;
      }
    });
}

function searchableText(event: ConversationEvent): { text: string; kind: HitKind } | undefined {
  if (event.type === "chat_request") return { text: event.content, kind: "user" };
  if (event.type === "chat_response" && event.message !== undefined)
    return { text: event.message, kind: "assistant" };
  if (event.type === "tool_call_response") return { text: event.content, kind: "tool_output" };
  return undefined;
}
