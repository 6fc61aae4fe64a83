/**
 * `cxc config show`: layer order (user file, workspace file, environment, -c overlays in order),
 * origins per leaf, and the failures: a malformed file, a missing -c file, credential-like keys.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { errorLines } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

interface Shown {
  config: Record<string, unknown>;
  leaves: { key: string; value: unknown; origin: string }[];
  files: string[];
}

function origins(shown: Shown): Record<string, [unknown, string]> {
  return Object.fromEntries(shown.leaves.map((leaf) => [leaf.key, [leaf.value, leaf.origin]]));
}

/** A user config file, a workspace with its own config file, and a -c overlay file. */
function writeLayers(): { user: string; workspace: string; overlay: string; project: string } {
  const user = join(home.env.XDG_CONFIG_HOME!, "cxc", "config.toml");
  mkdirSync(join(home.env.XDG_CONFIG_HOME!, "cxc"), { recursive: true });
  writeFileSync(
    user,
    [
      "[assistant.model]",
      'id = "anthropic/from-user"',
      "[conversation.compaction]",
      "rules = [{ keep_first = 1, keep_last = 2 }]",
      "[conversation.tools.read_file]",
      'run = "ask"',
      "",
    ].join("\n"),
  );
  const project = join(home.cwd, "..", "project");
  mkdirSync(join(project, ".cxc"), { recursive: true });
  const workspace = join(project, ".cxc", "config.toml");
  writeFileSync(workspace, '[conversation.tools.read_file]\nrun = "unattended"\nenable = true\n');
  const overlay = join(project, "overlay.toml");
  writeFileSync(
    overlay,
    '[assistant]\ninstructions = "from overlay"\n[assistant.model]\nid = "openai/from-file"\n',
  );
  return { user, workspace, overlay, project };
}

describe("cxc config show", () => {
  it("merges user, workspace, environment and -c layers in order and names each origin", async () => {
    home = makeTempHome();
    const { user, workspace, overlay, project } = writeLayers();
    const result = await home.run(
      [
        "--format",
        "json",
        "-c",
        "overlay.toml",
        "-c",
        "assistant.model.id=ollama/from-flag",
        "-c",
        "conversation.compaction.advisor.enabled=false",
        "config",
        "show",
      ],
      {
        cwd: project,
        env: { CXC_CONVERSATION__COMPACTION__REVIEW__MODEL: "builtin/digest", CXC_HOME_X: "y" },
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const shown = JSON.parse(result.stdout) as Shown;
    expect(shown.files).toEqual([user, workspace, overlay]);
    expect(origins(shown)).toEqual({
      "assistant.instructions": ["from overlay", overlay],
      "assistant.model.id": ["ollama/from-flag", "-c"],
      "conversation.compaction.advisor.enabled": [false, "-c"],
      // The advisor's defaults, where nothing sets them (the decision model is the assistant's).
      "conversation.compaction.advisor.choice_options": [null, "default"],
      "conversation.compaction.advisor.cut_point": [true, "default"],
      "conversation.compaction.advisor.max_turns": [12, "default"],
      "conversation.compaction.advisor.model": [null, "default"],
      "conversation.compaction.advisor.notice_tokens": [60000, "default"],
      "conversation.compaction.advisor.recommend_tokens": [100000, "default"],
      "conversation.compaction.advisor.request_tokens": [140000, "default"],
      "conversation.compaction.advisor.timeout_ms": [5000, "default"],
      "conversation.compaction.review.model": [
        "builtin/digest",
        "env CXC_CONVERSATION__COMPACTION__REVIEW__MODEL",
      ],
      "conversation.compaction.rules": [[{ keep_first: 1, keep_last: 2 }], user],
      "conversation.compaction.summary.fallback": [null, "default"],
      "conversation.tools.read_file.enable": [true, workspace],
      "conversation.tools.read_file.run": ["unattended", workspace],
      "providers.ollama.base_url": ["http://localhost:11434/v1", "default"],
    });
    expect(shown.config).toMatchObject({ assistant: { model: { id: "ollama/from-flag" } } });
  });

  it("-c overrides the environment, and environment scalars are typed like TOML", async () => {
    home = makeTempHome();
    const result = await home.run(["--format", "json", "-c", "assistant.model.id=a/b", "config", "show"], {
      env: { CXC_ASSISTANT__MODEL__ID: "c/d", CXC_CONVERSATION__COMPACTION__AUTO__THRESHOLD: "0.8" },
    });
    const leaves = origins(JSON.parse(result.stdout) as Shown);
    expect(leaves["assistant.model.id"]).toEqual(["a/b", "-c"]);
    expect(leaves["conversation.compaction.auto.threshold"]).toEqual([
      0.8,
      "env CXC_CONVERSATION__COMPACTION__AUTO__THRESHOLD",
    ]);
  });

  it("prints one line per leaf with its origin in text mode", async () => {
    home = makeTempHome();
    const result = await home.run(["-c", "assistant.model.id=anthropic/x", "config", "show"]);
    // First where the values come from and where conversations go.
    expect(result.stdout).toBe(
      [
        `# user file: ${home.env.XDG_CONFIG_HOME}/cxc/config.toml (from XDG_CONFIG_HOME; absent)`,
        `# store: ${home.home} (from CXC_HOME)`,
        'assistant.model.id                               = "anthropic/x"  # -c',
        "conversation.compaction.advisor.choice_options   = (not declared: max_turns is 12)  # default",
        "conversation.compaction.advisor.cut_point        = true  # default",
        "conversation.compaction.advisor.enabled          = true  # default",
        "conversation.compaction.advisor.max_turns        = 12  # default",
        "conversation.compaction.advisor.model            = (the assistant model)  # default",
        "conversation.compaction.advisor.notice_tokens    = 60000  # default",
        "conversation.compaction.advisor.recommend_tokens = 100000  # default",
        "conversation.compaction.advisor.request_tokens   = 140000  # default",
        "conversation.compaction.advisor.timeout_ms       = 5000  # default",
        "conversation.compaction.summary.fallback         = (abort for a model you name, else digest)  # default",
        'providers.ollama.base_url                        = "http://localhost:11434/v1"  # default',
        "",
      ].join("\n"),
    );
  });

  it("names the store and the files in use, as XDG_CONFIG_HOME and the workspace place them", async () => {
    home = makeTempHome();
    const { user } = writeLayers();
    const json = JSON.parse((await home.run(["--format", "json", "config", "show"])).stdout);
    expect(json.user_file).toBe(user);
    expect(json.store).toEqual({ root: home.home, kind: "home", origin: "CXC_HOME" });
    const text = (await home.run(["config", "show"])).stdout.split("\n");
    expect(text[0]).toBe(`# user file: ${user} (from XDG_CONFIG_HOME)`);
    // `cxc` alone names the same file.
    expect((await home.run([])).stdout).toContain(`(or assistant.model.id in ${user})`);
  });

  it("a malformed file is one error naming file and line", async () => {
    home = makeTempHome();
    const { user } = writeLayers();
    writeFileSync(user, '[assistant]\nname = "ok"\nbroken = \n');
    const result = await home.run(["config", "show"]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    const { error, hint } = errorLines(result.stderr);
    expect(error).toMatch(
      new RegExp(`^${user.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:3:\\d+: invalid TOML: `),
    );
    expect(hint).toMatch(/TOML/);
  });

  it("a -c value that is neither KEY=VALUE nor an existing file is a usage error", async () => {
    home = makeTempHome();
    const result = await home.run(["-c", "missing.toml", "config", "show"]);
    expect(result.exitCode).toBe(2);
    const { error, hint } = errorLines(result.stderr);
    expect(error).toMatch(/^-c missing\.toml: no such configuration file \(.*missing\.toml\)$/);
    expect(hint).toMatch(/KEY=VALUE/);
  });

  it("refuses credential-like keys on the command line and ignores them in files and the environment", async () => {
    home = makeTempHome();
    const refused = await home.run(["-c", "providers.anthropic.api_key=sk-secret", "config", "show"]);
    expect(refused.exitCode).toBe(2);
    expect(errorLines(refused.stderr).error).toMatch(
      /'providers\.anthropic\.api_key' looks like a credential/,
    );
    expect(refused.stdout).toBe("");

    const { user } = writeLayers();
    writeFileSync(user, '[providers.openai]\napi_key = "sk-file"\nbase_url = "http://localhost:1/v1"\n');
    const ignored = await home.run(["--format", "json", "config", "show"], {
      env: { CXC_PROVIDERS__ANTHROPIC__API_KEY: "sk-env" },
    });
    expect(ignored.exitCode, ignored.stderr).toBe(0);
    expect(ignored.stdout).not.toContain("sk-");
    expect(origins(JSON.parse(ignored.stdout) as Shown)["providers.openai.base_url"]).toEqual([
      "http://localhost:1/v1",
      user,
    ]);
    expect(ignored.stderr).toMatch(
      /^cxc: warning: .*config\.toml: ignored 'providers\.openai\.api_key' looks like a credential/m,
    );
    expect(ignored.stderr).toMatch(/^cxc: warning: CXC_PROVIDERS__ANTHROPIC__API_KEY: ignored/m);
  });
});
