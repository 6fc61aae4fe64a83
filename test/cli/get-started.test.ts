/**
 * What a newcomer types first: `cxc` alone prints how to start (exit 0), not the whole help as an
 * error; `compact --help` says what a bare `compact` does and shows examples; no help line
 * carries commander's `(preset: "")` or `(default: none)`.
 */
import { describe, expect, it } from "vitest";
import { makeTempHome } from "../helpers/cli.js";

describe("cxc alone", () => {
  it("prints the get-started lines on stdout and exits 0", async () => {
    const home = makeTempHome();
    try {
      const result = await home.run([]);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain("npm run demo");
      expect(result.stdout).toContain("cxc conversation import PATH");
      expect(result.stdout).toContain("ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY");
      // Every agent whose sessions come in is named.
      for (const agent of ["Claude Code", "pi", "Codex", "Gemini CLI", "opencode"])
        expect(result.stdout.replace(/\s+/g, " ")).toContain(agent);
      expect(result.stdout).toContain("assistant.model.id");
      expect(result.stdout).not.toContain("Usage:");
      expect(result.stdout.split("\n").length).toBeLessThan(20);
    } finally {
      home.cleanup();
    }
  });
});

describe("--help", () => {
  it("compact --help says what a bare compact does, with examples, and no noise", async () => {
    const home = makeTempHome();
    try {
      const result = await home.run(["conversation", "compact", "--help"]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("Without rule flags, compact applies the configured rules");
      expect(result.stdout).toContain("keep the first and the last turn");
      expect(result.stdout).toMatch(/\nExamples:\n {2}cxc c compact --dry-run /);
      expect(result.stdout).toMatch(/-k, --compact \[SPEC\] +rules as POLICIES/);
      for (const args of [
        ["--help"],
        ["conversation", "compact", "--help"],
        ["conversation", "fork", "--help"],
        ["q", "--help"],
      ]) {
        const help = (await home.run(args)).stdout;
        expect(help, args.join(" ")).not.toContain("preset:");
        expect(help, args.join(" ")).not.toContain("default: none");
      }
      // Other defaults are still said.
      expect((await home.run(["--help"])).stdout.replace(/\s+/g, " ")).toContain('(default: "text")');
    } finally {
      home.cleanup();
    }
  });
});
