/**
 * `cxc hooks install|uninstall --agent gemini` and `cxc hook gemini` through the built CLI: Gemini
 * CLI's settings.json (comments and all) merged and given back byte for byte, a broken one refused
 * and untouched, hooks switched off said; the hook silent below the notice line and advising
 * `/compress` above it at `AfterAgent`; at `BeforeModel`, a request that opens with Gemini's
 * compression gets the facts after the summary (messages handed back up to the summary only), any
 * other request and a summary Gemini did not write in this session file get nothing. The pinned
 * Gemini CLI runs these hooks in test/agents/gemini-hooks.test.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";

let home: TempHome;
let settings: string;

const USERS_SETTINGS = `// my Gemini settings
{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  /* the user's own hook */
  "hooks": {
    "AfterAgent": [
      { "hooks": [{ "type": "command", "command": "notify-send done", "timeout": 5000 }] }
    ]
  }
}
`;

beforeEach(() => {
  home = makeTempHome();
  settings = join(home.env.HOME!, ".gemini", "settings.json");
  mkdirSync(home.cwd, { recursive: true });
});
afterEach(() => home.cleanup());

const logPath = () => join(home.env.HOME!, ".local", "state", "cxc", "hooks.log");
const logLines = () =>
  existsSync(logPath()) ? readFileSync(logPath(), "utf8").split("\n").filter(Boolean) : [];

describe("cxc hooks install --agent gemini", () => {
  it("merges into settings with comments, changes nothing the second time, and uninstall gives the file back", async () => {
    mkdirSync(join(home.env.HOME!, ".gemini"), { recursive: true });
    writeFileSync(settings, USERS_SETTINGS);
    const installed = await home.run(["hooks", "install", "--agent", "gemini"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      `Installed cxc's Gemini CLI hooks in ${settings}: AfterAgent (advice at the end of each turn), BeforeModel (the restore after Gemini CLI compresses, in each request after its summary).`,
    );
    const text = readFileSync(settings, "utf8");
    expect(text.startsWith("// my Gemini settings\n")).toBe(true);
    expect(text).toContain("/* the user's own hook */");
    expect(text).toContain('"command": "notify-send done", "timeout": 5000');
    expect(text).toMatch(/"command": "[^"]*bin\/cxc\.cjs'? hook gemini", "timeout": 30000 \}\] \}\n/);
    expect(text).toContain('"BeforeModel": [');

    const again = await home.run(["hooks", "install", "--agent", "gemini"]);
    expect(again.stdout).toContain("already installed");
    expect(readFileSync(settings, "utf8")).toBe(text);

    const status = await home.run(["--format", "json", "hooks", "status"], { cwd: home.cwd });
    const report = JSON.parse(status.stdout) as {
      agents: { agent: string; scope: string; installed: { event: string }[] }[];
    };
    const row = report.agents.find((entry) => entry.agent === "gemini" && entry.scope === "user")!;
    expect(row.installed.map((hook) => hook.event)).toEqual(["AfterAgent", "BeforeModel"]);

    const removed = await home.run(["hooks", "uninstall", "--agent", "gemini"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(USERS_SETTINGS);
  });

  it("refuses settings that are not valid JSON, leaving them; says when hooks are switched off; --project hints at trust", async () => {
    mkdirSync(join(home.env.HOME!, ".gemini"), { recursive: true });
    writeFileSync(settings, '{"hooks": {"AfterAgent": [}');
    const refused = await home.run(["hooks", "install", "--agent", "gemini"]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(settings);
    expect(refused.stderr).toContain("nothing was changed");
    expect(readFileSync(settings, "utf8")).toBe('{"hooks": {"AfterAgent": [}');

    writeFileSync(settings, '{\n  "hooksConfig": { "enabled": false }\n}\n');
    const off = await home.run(["hooks", "install", "--agent", "gemini"]);
    expect(off.exitCode, off.stderr).toBe(0);
    expect(off.stderr).toContain("switches Gemini CLI's hooks off (hooksConfig.enabled is false)");
    expect(JSON.parse(readFileSync(settings, "utf8")).hooksConfig).toEqual({ enabled: false });

    const project = await home.run(["hooks", "install", "--agent", "gemini", "--project"], { cwd: home.cwd });
    expect(project.exitCode, project.stderr).toBe(0);
    expect(existsSync(join(home.cwd, ".gemini", "settings.json"))).toBe(true);
    expect(project.stderr).toContain("Gemini CLI runs a project's hooks only in a folder you trust");
    const local = await home.run(["hooks", "install", "--agent", "gemini", "--local"], { cwd: home.cwd });
    expect(local.exitCode).not.toBe(0);
    expect(local.stderr).toContain("Gemini CLI has no local settings file");
  });
});

describe("cxc hook gemini", () => {
  const fixture = readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "gemini", "session.jsonl"), "utf8");
  const hook = (input: unknown, env: Record<string, string> = {}) =>
    home.run(["hook", "gemini"], { input: JSON.stringify(input), env });
  const event = (name: string, path: string, more: Record<string, unknown> = {}) => ({
    hook_event_name: name,
    session_id: "g1",
    transcript_path: path,
    cwd: "/home/user/project",
    timestamp: "2026-12-03T07:43:20.000Z",
    ...more,
  });
  /** The request Gemini CLI hands `BeforeModel` after the fixture's compression, in hook format. */
  const compressedRequest = (summary: string) => ({
    model: "gemini-2.5-flash",
    messages: [
      { role: "user", content: "<session_context>\nThis is the Gemini CLI.\n</session_context>" },
      { role: "user", content: summary },
      { role: "model", content: "Got it. Thanks for the additional context!" },
      { role: "user", content: "What should I do first?" },
      { role: "model", content: "" },
    ],
    config: { temperature: 1 },
  });
  const SNAPSHOT =
    "<state_snapshot>The user listed the files and read notes.txt (remember the milk); there is no changelog.</state_snapshot>";

  it("at BeforeModel, adds the facts after Gemini's own summary, handing back the messages up to it only", async () => {
    const path = join(home.cwd, "session.jsonl");
    writeFileSync(path, fixture);
    const plain = await hook(
      event("BeforeModel", path, {
        llm_request: { model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] },
      }),
    );
    expect(plain).toMatchObject({ exitCode: 0, stdout: "" });

    const result = await hook(event("BeforeModel", path, { llm_request: compressedRequest(SNAPSHOT) }));
    expect(result.exitCode, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as {
      hookSpecificOutput: {
        hookEventName: string;
        llm_request: { messages: { role: string; content: string }[] };
      };
    };
    expect(output.hookSpecificOutput.hookEventName).toBe("BeforeModel");
    const messages = output.hookSpecificOutput.llm_request.messages;
    expect(messages).toHaveLength(2);
    expect(messages[0]).toEqual(compressedRequest(SNAPSHOT).messages[0]);
    expect(messages[1]!.role).toBe("user");
    expect(messages[1]!.content).toBe(
      [
        SNAPSHOT,
        "cxc kept these facts of the conversation before this compaction, from its raw turns, in case the summary left them out:",
        'The user\'s instructions, verbatim:\n- "Never touch the migrations folder." (turn 1)\nFiles read: notes.txt, todo.md, CHANGELOG.md',
      ]
        .join("\n\n")
        .replace("\n\nThe user's", "\nThe user's"),
    );
    // Built once per compression: the record holds it, and the next request gets the same.
    const record = JSON.parse(
      readFileSync(join(home.env.HOME!, ".local", "state", "cxc", "hooks", "gemini", "g1.json"), "utf8"),
    ) as { gemini_restore: { summary: string; text: string } };
    expect(record.gemini_restore.text).toContain("Never touch the migrations folder.");
    writeFileSync(path, "");
    const cached = await hook(event("BeforeModel", path, { llm_request: compressedRequest(SNAPSHOT) }));
    expect(cached.stdout).toBe(result.stdout);
    expect(logLines()).toEqual([]);
  });

  it("at BeforeModel, after Gemini compresses a session cxc exported, brings back the messages pinned in cxc's summary, verbatim", async () => {
    const gemini = { GEMINI_CLI_HOME: join(home.cwd, "gemini-home") };
    const sessionFile = join(PROJECT_ROOT, "fixtures", "agents", "gemini", "session.jsonl");
    expect((await home.run(["conversation", "import", sessionFile])).exitCode).toBe(0);
    expect((await home.run(["conversation", "keep", "1", "--only", "user"])).exitCode).toBe(0);
    const compacted = await home.run([
      "conversation",
      "compact",
      "-k",
      "s:..-2",
      "-m",
      "builtin/digest",
      "-y",
    ]);
    expect(compacted.exitCode, compacted.stderr).toBe(0);
    const exported = await home.run(["conversation", "export", "--to", "gemini", "--format", "json"], {
      env: gemini,
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const path = (JSON.parse(exported.stdout) as { path: string }).path;
    const pinned = "Never touch the migrations folder. What do my notes and my todo list say?";
    expect(readFileSync(path, "utf8")).toContain(pinned);
    // Gemini CLI's own compression of the resumed session, as it records it: a `$set.messages`
    // rewrite opening with its snapshot and its acknowledgement (the pinned prompt is in neither).
    const snapshot = "<state_snapshot>The user asked about the notes and the changelog.</state_snapshot>";
    const request = compressedRequest(snapshot);
    const rewrite = request.messages.slice(0, 4).map((message, index) => ({
      id: `c${index}`,
      timestamp: "2026-12-03T08:00:00.000Z",
      type: message.role === "model" ? "gemini" : "user",
      content: [{ text: message.content }],
    }));
    writeFileSync(path, `${readFileSync(path, "utf8")}${JSON.stringify({ $set: { messages: rewrite } })}\n`);
    const result = await hook(event("BeforeModel", path, { llm_request: request }));
    expect(result.exitCode, result.stderr).toBe(0);
    const messages = (
      JSON.parse(result.stdout) as {
        hookSpecificOutput: { llm_request: { messages: { content: string }[] } };
      }
    ).hookSpecificOutput.llm_request.messages;
    expect(messages[1]!.content.startsWith(snapshot)).toBe(true);
    expect(messages[1]!.content).toContain(
      `[Pinned messages, kept verbatim]\nturn 1, the user:\n\`\`\`text\n${pinned}\n\`\`\``,
    );
  });

  it("at BeforeModel, leaves a summary Gemini did not write in this file (a resumed export) as it is", async () => {
    const path = join(home.cwd, "session.jsonl");
    writeFileSync(path, fixture);
    const exported = await hook(
      event("BeforeModel", path, {
        llm_request: compressedRequest(
          "This session continues an earlier conversation that was compacted with cxc.",
        ),
      }),
    );
    expect(exported).toMatchObject({ exitCode: 0, stdout: "" });
    expect(logLines()).toEqual([]);
  });

  it("fails open: a transcript that is not there or is a folder, and stdin that is not JSON, give exit 0 and nothing", async () => {
    const missing = join(home.cwd, "gone.jsonl");
    mkdirSync(join(home.cwd, "folder.jsonl"), { recursive: true });
    for (const path of [missing, join(home.cwd, "folder.jsonl")]) {
      const before = await hook(event("BeforeModel", path, { llm_request: compressedRequest(SNAPSHOT) }));
      expect(before, path).toMatchObject({ exitCode: 0, stdout: "" });
      const after = await hook(event("AfterAgent", path, { prompt: "x" }), {
        CXC_ADVISOR_NOTICE_TOKENS: "10",
      });
      expect(after, path).toMatchObject({ exitCode: 0, stdout: "" });
    }
    const garbage = await home.run(["hook", "gemini"], { input: "{not json" });
    expect(garbage).toMatchObject({ exitCode: 0, stdout: "" });
  });

  it("at AfterAgent, is silent below the notice line and advises /compress above it, once per tier", async () => {
    const path = join(home.cwd, "session.jsonl");
    writeFileSync(path, fixture);
    const lines = (notice: string) => ({
      CXC_ADVISOR_NOTICE_TOKENS: notice,
      CXC_ADVISOR_RECOMMEND_TOKENS: "900000",
      CXC_ADVISOR_REQUEST_TOKENS: "950000",
    });
    const quiet = await hook(
      event("AfterAgent", path, { prompt: "What should I do first?" }),
      lines("900000"),
    );
    expect(quiet).toMatchObject({ exitCode: 0, stdout: "" });
    const loud = await hook(event("AfterAgent", path, { prompt: "What should I do first?" }), lines("10"));
    expect(loud.exitCode, loud.stderr).toBe(0);
    const message = (JSON.parse(loud.stdout) as { systemMessage: string }).systemMessage;
    expect(message).toMatch(/^cxc advisor: .*Context is at [\d.]+k? tokens \([\d.]+% of the window\)/);
    expect(message).toContain("To compact, type: /compress (cxc's hook adds the user's instructions");
    const again = await hook(event("AfterAgent", path, { prompt: "What should I do first?" }), lines("10"));
    expect(again).toMatchObject({ exitCode: 0, stdout: "" });
    expect(logLines()).toEqual([]);
  });
});
