/**
 * `-k[=SPEC]` and `--fork[=N]`: attached values are values, a separate word is the message.
 */
import { describe, expect, it } from "vitest";
import { restoreMessageWords, scanOptionalValueFlags } from "../../src/query/optional-values.js";

describe("scanOptionalValueFlags", () => {
  it("reads attached values and bare flags", () => {
    expect(
      scanOptionalValueFlags(["q", "-k=r+t", "-kt=omit", "--compact=s:..-2", "-k", "--fork=3", "hi"]),
    ).toEqual({
      compact: ["r+t", "t=omit", "s:..-2", true],
      fork: "3",
      swallowed: [],
    });
  });

  it("gives the word after a bare flag back to the message, including -", () => {
    expect(scanOptionalValueFlags(["q", "--fork", "question"])).toEqual({
      compact: [],
      fork: true,
      swallowed: ["question"],
    });
    expect(scanOptionalValueFlags(["q", "-k", "-"]).swallowed).toEqual(["-"]);
    expect(scanOptionalValueFlags(["q", "-k", "--new"]).swallowed).toEqual([]);
    expect(scanOptionalValueFlags(["q", "--", "-k"]).compact).toEqual([]);
  });
});

describe("restoreMessageWords", () => {
  it("orders positional and swallowed words as they were typed", () => {
    const raw = ["q", "-k", "first", "--new", "second"];
    expect(restoreMessageWords(raw, ["second"], ["first"])).toEqual(["first", "second"]);
    expect(restoreMessageWords(raw, ["second"], [])).toEqual(["second"]);
  });
});
