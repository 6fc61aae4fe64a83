/**
 * Parses the JSON text of a streamed tool call's arguments, shared by the adapters.
 *
 * Models occasionally send arguments that are not a JSON object (truncated output, plain text).
 * The call is still reported, with `{}` as arguments and the raw text kept, so the turn loop can
 * answer it with a tool error instead of losing it. Arguments nested deeper than any tool needs
 * are treated the same way: storing them would overflow the stack of the JSON writer.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";

/** The parsed arguments, plus the raw text when it was not a JSON object. */
export interface ParsedToolArguments {
  readonly arguments: Record<string, unknown>;
  readonly invalidArguments?: string;
}

/** Parses arguments text; empty text means no arguments. */
export function parseToolArguments(text: string): ParsedToolArguments {
  if (text.trim().length === 0) return { arguments: {} };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { arguments: {}, invalidArguments: text };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { arguments: value as Record<string, unknown> };
    }
  } catch {
    // Reported below with the raw text.
  }
  return { arguments: {}, invalidArguments: text };
}
