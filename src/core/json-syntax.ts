/**
 * Where JSON text goes wrong, and how deep a parsed value nests. Pure.
 *
 * `JSON.parse` says what is wrong in words that quote the text ("Unexpected token 'x', "…secret…"
 * is not valid JSON") and often without a position. Errors about files must name the line and
 * column and quote nothing of the file (it may be a symlink to anything, or hold escape sequences),
 * so `locateJsonError` checks the text again with its own small scanner (RFC 8259, no recursion)
 * and returns the offset and a fixed reason. It runs only after `JSON.parse` failed.
 */

/** The first syntax error of a JSON text: where, and a reason that quotes nothing. */
export interface JsonSyntaxError {
  /** 0-based offset in the text (UTF-16 units). */
  readonly offset: number;
  /** 1-based line and column (UTF-16 units), as editors count them. */
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

type State = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "after-value" | "end";

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function locateJsonError(text: string): JsonSyntaxError | undefined {
  const stack: ("[" | "{")[] = [];
  let state = "value" as State;
  let position = 0;
  const fail = (reason: string, at = position): JsonSyntaxError => errorAt(text, at, reason);
  const valueDone = (): void => {
    state = stack.length === 0 ? "end" : "after-value";
  };
  for (;;) {
    WHITESPACE.lastIndex = position;
    WHITESPACE.exec(text);
    position = WHITESPACE.lastIndex;
    if (position >= text.length) {
      return state === "end" ? undefined : fail(text.trim() === "" ? "the file is empty" : "unexpected end");
    }
    const character = text[position]!;
    switch (state) {
      case "value":
      case "value-or-close":
        if (character === "]" && state === "value-or-close") {
          stack.pop();
          position++;
          valueDone();
        } else if (character === "[" || character === "{") {
          stack.push(character);
          position++;
          state = character === "[" ? "value-or-close" : "key-or-close";
        } else {
          const end = scanScalar(text, position);
          if (typeof end !== "number") return fail(end.reason, end.at);
          position = end;
          valueDone();
        }
        break;
      case "key":
      case "key-or-close":
        if (character === "}" && state === "key-or-close") {
          stack.pop();
          position++;
          valueDone();
        } else if (character === '"') {
          const end = scanString(text, position);
          if (typeof end !== "number") return fail(end.reason, end.at);
          position = end;
          state = "colon";
        } else {
          return fail("expected a property name in double quotes");
        }
        break;
      case "colon":
        if (character !== ":") return fail("expected ':' after a property name");
        position++;
        state = "value";
        break;
      case "after-value": {
        const inArray = stack[stack.length - 1] === "[";
        if (character === ",") {
          position++;
          state = inArray ? "value" : "key";
        } else if (character === (inArray ? "]" : "}")) {
          stack.pop();
          position++;
          valueDone();
        } else {
          return fail(inArray ? "expected ',' or ']'" : "expected ',' or '}'");
        }
        break;
      }
      case "end":
        return fail("unexpected text after the value");
    }
  }
}

/** The end of the string, number or literal at `start`, or why it is not one. */
function scanScalar(text: string, start: number): number | { reason: string; at: number } {
  const character = text[start]!;
  if (character === '"') return scanString(text, start);
  if (character === "-" || (character >= "0" && character <= "9")) {
    NUMBER.lastIndex = start;
    if (NUMBER.exec(text) === null) return { reason: "not a valid number", at: start };
    return NUMBER.lastIndex;
  }
  for (const literal of ["true", "false", "null"]) {
    if (text.startsWith(literal, start)) return start + literal.length;
  }
  return { reason: "unexpected character", at: start };
}

/** The end of the string at `start` (just past its closing quote), or why it is not one. */
function scanString(text: string, start: number): number | { reason: string; at: number } {
  let position = start + 1;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === 0x22) return position + 1;
    if (code < 0x20) return { reason: "control character in a string", at: position };
    if (code === 0x5c) {
      const escaped = text[position + 1];
      if (escaped === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(position + 2, position + 6))) {
          return { reason: "bad \\u escape in a string", at: position };
        }
        position += 6;
        continue;
      }
      if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) {
        return { reason: "bad escape in a string", at: position };
      }
      position += 2;
      continue;
    }
    position++;
  }
  return { reason: "unterminated string", at: start };
}

function errorAt(text: string, offset: number, reason: string): JsonSyntaxError {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return { offset, line, column, reason };
}

/**
 * How deep imported JSON may nest. Real conversations stay far below it; recursive code
 * (`JSON.stringify`, `structuredClone`) overflows the stack a few thousand levels down.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * True when JSON text nests arrays and objects deeper than `limit` anywhere (brackets inside
 * strings do not count). A scan of the text, so it answers before anything is parsed or walked:
 * a file nested 100,000 levels deep gets an error, not a stack overflow. Each line of a log is
 * balanced on its own, so a whole log can be scanned at once; `lines: false` scans one document
 * that spans lines (a settings file).
 */
export function nestsDeeperThan(text: string, limit: number, options: { lines?: boolean } = {}): boolean {
  // Text with no more opening brackets than the limit cannot nest deeper: counted with the
  // engine's own search, which skips the rest of the text far faster than the scan below reads it
  // (a session's line holds a few dozen brackets in kilobytes of text).
  if (fewOpeners(text, limit)) return false;
  const perLine = options.lines !== false;
  let depth = 0;
  const stop = scanStructure(text, 0, (code) => {
    if (code === 0x5b || code === 0x7b) return ++depth > limit;
    if (code === 0x0a) {
      // A new log line starts at the top again (a torn line may leave brackets open).
      if (perLine) depth = 0;
    } else depth = Math.max(0, depth - 1);
    return false;
  });
  return stop !== -1;
}

/**
 * Walks `text` from `start`, handing `visit` each bracket (`[`, `{`, `]`, `}`) and line feed that
 * stands outside a string, until `visit` answers true: the index it stopped at, or -1 at the end.
 */
function scanStructure(text: string, start: number, visit: (code: number) => boolean): number {
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b || code === 0x5d || code === 0x7d || code === 0x0a) {
      if (visit(code)) return index;
    }
  }
  return -1;
}

/** Whether `text` holds at most `limit` opening brackets (`{`, `[`), inside strings or not. */
function fewOpeners(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1))
    if (++count > limit) return false;
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1))
    if (++count > limit) return false;
  return true;
}

/**
 * Where the first JSON object or array in `text` ends (the offset after its closing bracket), for
 * a reader that must stop once it holds one whole value (a hook's stdin, which the agent may keep
 * open). `"incomplete"` while brackets are still open; `"not-json"` when the text starts (after
 * whitespace) with anything but `{` or `[`, so no amount of waiting makes it one. Brackets inside
 * strings do not count; whether the value is valid JSON is for the parser to say.
 */
export function firstJsonValueEnd(text: string): number | "incomplete" | "not-json" {
  WHITESPACE.lastIndex = 0;
  WHITESPACE.exec(text);
  const start = WHITESPACE.lastIndex;
  if (start >= text.length) return "incomplete";
  const first = text.charCodeAt(start);
  if (first !== 0x7b && first !== 0x5b) return "not-json";
  let depth = 0;
  const end = scanStructure(text, start, (code) => {
    if (code === 0x5b || code === 0x7b) depth++;
    else if (code !== 0x0a) return --depth === 0;
    return false;
  });
  return end === -1 ? "incomplete" : end + 1;
}

/** Whether `text` is exactly one JSON value (whitespace around it aside): `JSON.parse` takes it. */
export function isOneJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
