/**
 * `npm run demo` (scripts/demo.mjs), the first thing a newcomer sees: it shows the import, says
 * what each step does in one line, shows each command's stderr and stdout in the order they were
 * written, and keeps the list of what a summary does not mention short.
 */
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/cli.js";

describe("npm run demo", () => {
  it("walks through the main job, one plain line per step, output in order", async () => {
    const result = await execa(process.execPath, ["scripts/demo.mjs"], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? "", TZ: "UTC" },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const output = result.stdout;
    // The import is a step of its own, with its output.
    expect(output).toMatch(
      /\n1\. Import a recorded coding session[^\n]*\n\$ cxc conversation import sample\/coding-session\.jsonl\nImported 01jsample0000 /,
    );
    // Every command is introduced by one numbered line.
    const commands = output.split("\n").filter((line) => line.startsWith("$ cxc "));
    const introductions = output.split("\n").filter((line) => /^\d+\. \S/.test(line));
    expect(commands.length).toBeGreaterThanOrEqual(10);
    expect(introductions).toHaveLength(commands.length);
    expect(output).toContain("the label `reasoning + tools`");
    expect(output).toContain("what the model sees");
    // stderr in its place: the notice comes before the result it belongs to.
    const step = output.slice(output.indexOf("$ cxc conversation compact -k s:..-4"));
    const notice = step.indexOf("cxc: No summary model is configured");
    expect(notice).toBeGreaterThan(0);
    expect(notice).toBeLessThan(step.indexOf("Compacted turns 1..16"));
    // The "does not mention" list is short: at most ten items, then how many more.
    const report = step.slice(step.indexOf("does not mention"));
    const items = report.split("\n").slice(1);
    const listed = items.slice(
      0,
      items.findIndex((line) => !line.startsWith("  ")),
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThanOrEqual(10);
  });

  it("says one context number: the reported usage less what the compactions save, and says so", async () => {
    const result = await execa(process.execPath, ["scripts/demo.mjs"], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? "", TZ: "UTC" },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    // The last `stats`, after both compactions.
    const stats = result.stdout.slice(result.stdout.lastIndexOf("$ cxc conversation stats"));
    const gauge =
      /\nContext: (\S+) tokens .*?reported, adjusted for what changed since\); 2 compactions save (\S+);/.exec(
        stats,
      );
    expect(gauge, stats).not.toBeNull();
    expect(gauge![1]).not.toBe("0");
    // Where it comes from, beside it: the reported figure less the reasoning not sent again and
    // the saving (the compactions' saving, on the provider's scale).
    const from =
      /\n {2}= (\S+) reported by the last request − \S+ of its turn's reasoning the provider does not send again − (\S+) saved by what changed since \(on the provider's scale, ×0\.\d\d\)\n/.exec(
        stats,
      );
    expect(from, stats).not.toBeNull();
    expect(from![2]).toBe(gauge![2]);
  });
});
