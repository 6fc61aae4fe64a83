/**
 * Tool selection: enable states, -t/-T in order, -u, run modes, and configuration errors.
 */
import { jsonSchemaArguments } from "../../src/tools/arguments.js";
import { describe, expect, it } from "vitest";
import type { ConfigTable } from "../../src/core/config.js";
import { selectTools, toolChoiceForCycle, toolDefinitions } from "../../src/query/tool-selection.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { Tool } from "../../src/tools/tool.js";

const builtin: Tool = {
  name: "compact",
  description: "compacts",
  arguments: jsonSchemaArguments({ type: "object" }),
  source: "builtin",
  defaults: { enable: "explicit", run: "ask" },
  run: async () => ({ content: "", isError: false }),
};

const configured: ConfigTable = {
  "*": { run: "unattended" },
  echo: { command: "echo hi" },
  grep: { command: ["grep", "{{pattern}}"], enable: false, run: "ask" },
};

const names = (selection: ReturnType<typeof selectTools>) => selection.tools.map((entry) => entry.tool.name);

describe("selectTools", () => {
  it("offers enabled tools, built-ins first, with run modes from the tool, then '*', then defaults", () => {
    const selection = selectTools({ registry: new ToolRegistry().register(builtin), configured });
    expect(names(selection)).toEqual(["echo"]);
    expect(selection.tools[0]!.run).toBe("unattended");
    const all = selectTools({
      registry: new ToolRegistry().register(builtin),
      configured,
      directives: [
        { name: "compact", enable: true },
        { name: "grep", enable: true },
      ],
    });
    expect(all.tools.map((entry) => [entry.tool.name, entry.run])).toEqual([
      ["compact", "unattended"],
      ["echo", "unattended"],
      ["grep", "ask"],
    ]);
  });

  it("applies -t and -T in command-line order", () => {
    const registry = new ToolRegistry();
    const enabledThenDisabled = selectTools({
      registry,
      configured,
      directives: [
        { name: "grep", enable: true },
        { name: "grep", enable: false },
      ],
    });
    expect(names(enabledThenDisabled)).toEqual(["echo"]);
    const disabledThenEnabled = selectTools({
      registry,
      configured,
      directives: [
        { name: "echo", enable: false },
        { name: "grep", enable: true },
      ],
    });
    expect(names(disabledThenEnabled)).toEqual(["grep"]);
  });

  it("-u forces the tool on the first cycle and enables it even after -T", () => {
    const selection = selectTools({
      registry: new ToolRegistry().register(builtin),
      configured,
      directives: [{ name: "compact", enable: false }],
      forced: "compact",
    });
    expect(names(selection)).toContain("compact");
    expect(toolChoiceForCycle(selection, 0)).toEqual({ type: "tool", name: "compact" });
    expect(toolChoiceForCycle(selection, 1)).toBeUndefined();
    expect(toolDefinitions(selection)[0]).toEqual({
      name: "compact",
      description: "compacts",
      parameters: { type: "object" },
    });
  });

  it("rejects unknown names and bad configuration clearly", () => {
    const registry = new ToolRegistry();
    expect(() => selectTools({ registry, configured, directives: [{ name: "nope", enable: true }] })).toThrow(
      "tool 'nope' not found",
    );
    expect(() => selectTools({ registry, configured: { bad: { run: "ask" } } })).toThrow("has no command");
    expect(() => selectTools({ registry, configured: { bad: { command: "x", run: "sometimes" } } })).toThrow(
      "conversation.tools.bad.run must be one of ask, unattended, edit, skip",
    );
    expect(() => selectTools({ registry, configured: { bad: { command: "x", enable: "maybe" } } })).toThrow(
      'enable must be true, false or "explicit"',
    );
    expect(() => selectTools({ registry, configured: { bad: { command: 42 } } })).toThrow("command must be");
  });
});
