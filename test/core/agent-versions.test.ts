/**
 * Sessions of agents newer than the pinned ones (src/core/interop/agent-versions.ts): each reader
 * (Claude Code, Codex, pi) fed the committed fixture with records and content of kinds it does not
 * know, from a version above the pin, reads the rest, counts what it skipped, and says so in one
 * line naming that version; the tested versions are the pins of agents/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { piSessionView } from "../../src/cli/pi/session-events.js";
import {
  compareVersions,
  describeUnknown,
  isNewerThanTested,
  TESTED_VERSIONS,
} from "../../src/core/interop/agent-versions.js";
import { importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { importPiSession, PI_SESSION_VERSION } from "../../src/core/interop/pi.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

type Json = Record<string, unknown>;
const fixture = (agent: string) =>
  readFileSync(join(PROJECT_ROOT, "fixtures", "agents", agent, "session.jsonl"), "utf8");
const lines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
const jsonl = (records: readonly Json[]) => `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;

describe("the versions cxc was tested with", () => {
  it("are the pins of agents/ (Claude Code, Codex) and the session format pi writes", () => {
    const pins = JSON.parse(readFileSync(join(PROJECT_ROOT, "agents", "package.json"), "utf8")).dependencies;
    const codex = JSON.parse(
      readFileSync(join(PROJECT_ROOT, "agents", "codex", "package.json"), "utf8"),
    ).dependencies;
    expect(TESTED_VERSIONS["claude-code"]).toBe(pins["@anthropic-ai/claude-code"]);
    expect(TESTED_VERSIONS.codex).toBe(codex["@openai/codex"]);
    expect(TESTED_VERSIONS.pi).toBe(String(PI_SESSION_VERSION));
    expect(TESTED_VERSIONS.gemini).toBe(pins["@google/gemini-cli"]);
    const opencode = JSON.parse(
      readFileSync(join(PROJECT_ROOT, "agents", "opencode", "package.json"), "utf8"),
    ).optionalDependencies;
    expect(TESTED_VERSIONS.opencode).toBe(opencode["opencode-linux-x64"]);
    // The fixtures the pinned agents wrote carry those versions.
    expect(importClaudeCodeSession(fixture("claude-code"), "s.jsonl")).toMatchObject({
      ok: true,
      value: { summary: { version: "2.1.332", unknown: {}, unknownFields: {} } },
    });
    expect(importCodexSession(fixture("codex"), "r.jsonl")).toMatchObject({
      ok: true,
      value: { summary: { version: "0.169.0", unknown: {}, unknownFields: {} } },
    });
  });

  it("compare part by part, numbers as numbers", () => {
    expect(compareVersions("2.10.0", "2.9.9")).toBe(1);
    expect(compareVersions("2.1.332", "2.1.332")).toBe(0);
    expect(compareVersions("0.169.0", "0.170.0-alpha")).toBe(-1);
    expect(compareVersions("v3", "3.0")).toBe(0);
    expect(isNewerThanTested("claude-code", "2.2.0")).toBe(true);
    expect(isNewerThanTested("claude-code", "2.1.9")).toBe(false);
    expect(isNewerThanTested("codex", undefined)).toBe(false);
  });
});

describe("a newer Claude Code", () => {
  it("reads the rest, counts an unknown record and an unknown block, and names the version", () => {
    const records = lines(fixture("claude-code")).map((record) =>
      typeof record.version === "string" ? { ...record, version: "2.9.0" } : record,
    );
    const assistant = records.findIndex(
      (record) => record.type === "assistant" && JSON.stringify(record).includes('"type":"text"'),
    );
    const message = records[assistant]!.message as Json;
    records[assistant] = {
      ...records[assistant],
      message: { ...message, content: [...(message.content as Json[]), { type: "hologram", data: "…" }] },
    };
    records.splice(3, 0, { type: "future-record", sessionId: "x", timestamp: "2026-12-01T10:14:26.100Z" });
    const plain = importClaudeCodeSession(fixture("claude-code"), "s.jsonl");
    const newer = importClaudeCodeSession(jsonl(records), "s.jsonl");
    if (!newer.ok || !plain.ok) throw new Error("import failed");
    expect(newer.value.summary).toMatchObject({
      version: "2.9.0",
      unknown: { "future-record": 1 },
      unknownFields: { "block hologram": 1 },
    });
    expect(newer.value.summary.turns).toBe(plain.value.summary.turns);
    expect(describeUnknown(newer.value.summary)).toBe(
      "written by Claude Code 2.9.0, newer than 2.1.332, which cxc was tested with: 1 record and 1 field of kinds cxc does not know were left out (future-record 1; block hologram 1)",
    );
    expect(describeUnknown(plain.value.summary)).toBeUndefined();
  });
});

describe("a newer Codex", () => {
  it("reads the rest, counts an unknown record and an unknown part, and names the version", () => {
    const [meta, ...rest] = lines(fixture("codex"));
    const newerMeta = { ...meta, payload: { ...(meta!.payload as Json), cli_version: "0.300.1" } };
    const answer = rest.findIndex(
      (record) =>
        (record.payload as Json).type === "message" && (record.payload as Json).role === "assistant",
    );
    const payload = rest[answer]!.payload as Json;
    rest[answer] = {
      ...rest[answer],
      payload: { ...payload, content: [...(payload.content as Json[]), { type: "output_hologram" }] },
    };
    rest.splice(2, 0, { timestamp: "2026-12-01T12:00:00.000Z", type: "world_model", payload: { x: 1 } });
    const newer = importCodexSession(jsonl([newerMeta, ...rest]), "r.jsonl");
    if (!newer.ok) throw new Error(newer.message);
    expect(newer.value.summary).toMatchObject({
      version: "0.300.1",
      unknown: { world_model: 1 },
      unknownFields: { "part output_hologram": 1 },
    });
    expect(describeUnknown(newer.value.summary)).toBe(
      "written by Codex 0.300.1, newer than 0.169.0, which cxc was tested with: 1 record and 1 field of kinds cxc does not know were left out (world_model 1; part output_hologram 1)",
    );
  });
});

describe("a newer pi session format", () => {
  const [header, ...entries] = lines(fixture("pi"));
  const last = entries.at(-1)!;
  const newer = [
    { ...header, version: 4 },
    ...entries,
    { type: "hologram", id: "h1", parentId: last.id, timestamp: "2026-12-01T10:15:00.000Z" },
  ];

  it("is read as format 3, not refused, and what it holds that cxc does not know is named", () => {
    const imported = importPiSession(jsonl(newer), "p.jsonl");
    if (!imported.ok) throw new Error(imported.message);
    const plain = importPiSession(fixture("pi"), "p.jsonl");
    if (!plain.ok) throw new Error(plain.message);
    expect(imported.value.summary).toMatchObject({ version: "4", unknown: { hologram: 1 } });
    expect(imported.value.conversation.extra.origin).toMatchObject({ version: 4 });
    expect(imported.value.summary.turns).toBe(plain.value.summary.turns);
    expect(describeUnknown(imported.value.summary)).toBe(
      "written by pi session format 4, newer than 3, which cxc was tested with: 1 record of kinds cxc does not know was left out (hologram 1)",
    );
  });

  it("the pi extension's view of such a session carries the same line", () => {
    const view = piSessionView(newer[0]!, newer.slice(1) as never);
    expect(view.unknown).toBe(
      "written by pi session format 4, newer than 3, which cxc was tested with: 1 record of kinds cxc does not know was left out (hologram 1)",
    );
    expect(piSessionView(header!, entries as never).unknown).toBeUndefined();
  });
});
