/**
 * The JSON error locator and depth check (src/core/json-syntax.ts): it agrees with JSON.parse on
 * what is valid, points at the first error, and never recurses.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstJsonValueEnd, locateJsonError, nestsDeeperThan } from "../../src/core/json-syntax.js";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON texts with a few characters changed, inserted or removed: valid and invalid alike. */
const mangledJson = fc
  .tuple(
    fc.json(),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom(
          "",
          ",",
          "]",
          "}",
          "{",
          "[",
          '"',
          "\\",
          ":",
          "x",
          "1",
          "-",
          ".",
          "e",
          " ",
          "\n",
          "\u0001",
        ),
        fc.nat({ max: 2 }),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([text, edits]) =>
    edits.reduce((current, [at, insert, remove]) => {
      const position = current.length === 0 ? 0 : at % (current.length + 1);
      return current.slice(0, position) + insert + current.slice(position + remove);
    }, text),
  );

describe("locateJsonError", () => {
  it("finds an error exactly when JSON.parse fails", () => {
    fc.assert(
      fc.property(mangledJson, (text) => {
        expect(locateJsonError(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("points at the first error's line and column", () => {
    expect(locateJsonError('{\n  "a": 1,\n  "b" 2\n}')).toEqual({
      offset: 18,
      line: 3,
      column: 7,
      reason: "expected ':' after a property name",
    });
    expect(locateJsonError("[1, 2")).toMatchObject({ line: 1, column: 6, reason: "unexpected end" });
    expect(locateJsonError("")).toMatchObject({ reason: "the file is empty" });
    expect(locateJsonError('"a\u0001"')).toMatchObject({
      column: 3,
      reason: "control character in a string",
    });
    expect(locateJsonError('"\\x"')).toMatchObject({ column: 2, reason: "bad escape in a string" });
    expect(locateJsonError("01")).toMatchObject({ column: 2, reason: "unexpected text after the value" });
    expect(locateJsonError("[1] [2]")).toMatchObject({
      column: 5,
      reason: "unexpected text after the value",
    });
  });

  it("handles nesting far beyond any call stack", () => {
    const depth = 200_000;
    expect(locateJsonError(`${"[".repeat(depth)}${"]".repeat(depth)}`)).toBeUndefined();
    expect(locateJsonError(`${"[".repeat(depth)}x`)).toMatchObject({ column: depth + 1 });
  });
});

describe("nestsDeeperThan", () => {
  it("counts arrays and objects, not brackets inside strings", () => {
    expect(nestsDeeperThan('{"a": [1, {"b": 2}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a": [1, {"b": 2}]}', 2)).toBe(true);
    expect(nestsDeeperThan('"[[[[[\\"[[[["', 0)).toBe(false);
    expect(nestsDeeperThan("[[1]]\n[[2]]", 2)).toBe(false);
    expect(nestsDeeperThan(`${"[".repeat(50_000)}${"]".repeat(50_000)}`, 256)).toBe(true);
  });
});

describe("firstJsonValueEnd", () => {
  it("finds the end of the first object or array, brackets in strings not counted", () => {
    expect(firstJsonValueEnd('  {"a": "}{[", "b": [1, {"c": "\\""}]}\n{"next": 1}')).toBe(37);
    expect(firstJsonValueEnd("[1, 2]tail")).toBe(6);
    expect(firstJsonValueEnd('{"a": "open')).toBe("incomplete");
    expect(firstJsonValueEnd(" \n")).toBe("incomplete");
    expect(firstJsonValueEnd("not json")).toBe("not-json");
  });

  it("for any JSON object followed by anything, is where the object ends", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (value, rest) => {
        const text = JSON.stringify(value);
        expect(firstJsonValueEnd(text + rest)).toBe(text.length);
        expect(firstJsonValueEnd(text.slice(0, -1))).toBe("incomplete");
      }),
    );
  });
});
