/**
 * cxc's hook entries added to and taken out of an agent's JSON settings as text
 * (src/core/interop/agent-hooks.ts, src/core/interop/json-text-edit.ts): every other byte stays,
 * in the file's own layout; install then uninstall gives the file back byte for byte, over a
 * corpus of real shapes (fixtures/agent-settings/) and over generated documents; cxc's entries
 * are known by their exact form only; a file the agent would read otherwise is refused.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CLAUDE_CODE_SETTINGS,
  CODEX_HOOKS_SETTINGS,
  cxcHookCommand,
  findHooks,
  type HookEntry,
  installHooks,
  isCxcHookCommand,
  type SettingsOptions,
  uninstallHooks,
} from "../../src/core/interop/agent-hooks.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

const COMMAND = "/usr/bin/node /opt/cxc/bin/cxc.cjs hook claude-code";
const CODEX_COMMAND = "/usr/bin/node /opt/cxc/bin/cxc.cjs hook codex";
const ENTRIES: HookEntry[] = [
  { event: "Stop", command: COMMAND, timeout: 30 },
  { event: "SessionStart", matcher: "compact", command: COMMAND, timeout: 30 },
];
const CODEX_ENTRIES: HookEntry[] = [{ event: "SessionStart", matcher: "compact", command: CODEX_COMMAND }];
const CLAUDE: SettingsOptions = {
  isOurs: (command) => isCxcHookCommand(command, "claude-code"),
  dialect: CLAUDE_CODE_SETTINGS,
  label: "settings.json",
};
const CODEX: SettingsOptions = {
  isOurs: (command) => isCxcHookCommand(command, "codex"),
  dialect: CODEX_HOOKS_SETTINGS,
  label: "hooks.json",
};

function installed(text: string | undefined, entries = ENTRIES, options = CLAUDE): string {
  const result = installHooks(text, entries, options);
  if (!result.ok) throw new Error(result.error);
  return result.text;
}

function uninstalled(text: string, options = CLAUDE): string {
  const result = uninstallHooks(text, options);
  if (!result.ok) throw new Error(result.error);
  return result.text;
}

function refusal(text: string, options = CLAUDE): string {
  const result = installHooks(text, ENTRIES, options);
  if (result.ok) throw new Error("accepted");
  const removal = uninstallHooks(text, options);
  expect(removal).toEqual(result);
  return result.error;
}

describe("cxc's command, by its exact form only", () => {
  const ours = CLAUDE.isOurs;

  it("is what cxc installs: Node and cxc's bin by absolute paths, quoted when they need it", () => {
    expect(cxcHookCommand("claude-code", "/usr/bin/node", "/opt/cxc/bin/cxc.cjs")).toBe(COMMAND);
    const spaced = cxcHookCommand("claude-code", "/n v/node", "/home/o'brien/cxc/bin/cxc.cjs");
    expect(spaced).toBe("'/n v/node' '/home/o'\\''brien/cxc/bin/cxc.cjs' hook claude-code");
    expect(ours(COMMAND)).toBe(true);
    expect(ours(spaced)).toBe(true);
  });

  it("knows the forms people write by hand: cxc by name or path, node by name", () => {
    expect(ours("cxc hook claude-code")).toBe(true);
    expect(ours("/usr/local/bin/cxc hook claude-code")).toBe(true);
    expect(ours('node "/a b/bin/cxc.cjs" hook claude-code')).toBe(true);
    expect(
      ours("/home/me/.nvm/versions/node/v20.1.0/bin/node /home/me/cxc/bin/cxc.cjs hook claude-code"),
    ).toBe(true);
  });

  it("never takes a user's command that mentions it, or adds anything to it, for cxc's", () => {
    for (const command of [
      'say "cxc hook claude-code finished"',
      "echo cxc hook claude-code >> ~/log",
      "cxc hook claude-code --verbose",
      "cxc hook claude-code; rm -rf ~",
      "cxc hook claude-code && notify-send done",
      "FOO=1 cxc hook claude-code",
      "time cxc hook claude-code",
      "cxc hook codex",
      "notcxc hook claude-code",
      "./cxc hook claude-code",
      "/usr/bin/python3 /opt/cxc/bin/cxc.cjs hook claude-code",
      "$HOME/cxc/bin/cxc.cjs hook claude-code",
      "cxc hooks status",
      "cxc hook 'claude-code",
    ]) {
      expect(ours(command), command).toBe(false);
    }
  });
});

const CORPUS = join(PROJECT_ROOT, "fixtures", "agent-settings");
const corpus = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".json"))
  .map((name) => ({ name, text: readFileSync(join(CORPUS, name), "utf8") }));

describe("the corpus of real settings shapes: install, then uninstall, gives every byte back", () => {
  it("holds the shapes the issue names", () => {
    expect(corpus.map((file) => file.name)).toEqual(
      expect.arrayContaining(["tabs.json", "crlf.json", "minified.json", "inline-objects.json", "bom.json"]),
    );
  });

  for (const [agent, entries, options] of [
    ["Claude Code", ENTRIES, CLAUDE],
    ["Codex", CODEX_ENTRIES, CODEX],
  ] as const) {
    for (const { name, text } of corpus) {
      it(`${agent}: ${name}`, () => {
        if (name === "bom.json" && agent === "Codex") {
          expect(refusal(text, options)).toMatch(/byte-order mark/);
          return;
        }
        const withHooks = installed(text, entries, options);
        expect(uninstalled(withHooks, options)).toBe(text);
        expect(installHooks(withHooks, entries, options)).toEqual({
          ok: true,
          text: withHooks,
          changed: false,
          events: [],
        });
        const found = findHooks(withHooks, options);
        expect(found.ok && found.value.map((hook) => hook.event).sort()).toEqual(
          entries.map((entry) => entry.event).sort(),
        );
        // The value is the user's plus cxc's groups, nothing else.
        const before = JSON.parse(text.replace(/^\uFEFF/, ""));
        const after = JSON.parse(withHooks.replace(/^\uFEFF/, ""));
        const { hooks: added, ...rest } = after;
        const { hooks: had = {}, ...restBefore } = before;
        expect(rest).toEqual(restBefore);
        for (const entry of entries) {
          const group = {
            ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }),
            hooks: [
              {
                type: "command",
                command: entry.command,
                ...(entry.timeout === undefined ? {} : { timeout: entry.timeout }),
              },
            ],
          };
          expect(added[entry.event]).toEqual([...(had[entry.event] ?? []), group]);
        }
        // The line ends stay the file's own.
        expect(withHooks.includes("\r\n")).toBe(text.includes("\r\n"));
        if (text.includes("\r\n")) expect(withHooks.replace(/\r\n/g, "")).not.toContain("\n");
      });
    }
  }
});

describe("what cxc adds takes the layout of where it goes", () => {
  it("tabs: one member per line, one tab deeper per level", () => {
    const text = installed(readFileSync(join(CORPUS, "tabs.json"), "utf8"));
    expect(text).toContain(
      '\t\t\t},\n\t\t\t{\n\t\t\t\t"hooks": [\n\t\t\t\t\t{\n\t\t\t\t\t\t"type": "command",\n\t\t\t\t\t\t"command": "/usr/bin/node',
    );
    expect(text).toContain('\t\t],\n\t\t"SessionStart": [\n\t\t\t{\n\t\t\t\t"matcher": "compact",');
  });

  it("a minified file stays on one line", () => {
    const text = installed(readFileSync(join(CORPUS, "minified.json"), "utf8"));
    expect(text).not.toContain("\n");
    expect(text).toContain(
      `"hooks":[{"type":"command","command":"notify-send Claude"}]}],"Stop":[{"hooks":[{"type":"command","command":"${COMMAND}","timeout":30}]}],"SessionStart":[`,
    );
  });

  it("an inline list gets an inline group; an inline neighbour is not expanded", () => {
    const source = readFileSync(join(CORPUS, "inline-objects.json"), "utf8");
    const text = installed(source);
    expect(text).toContain(
      '"env": {"ANTHROPIC_MODEL": "claude-opus-4-1", "BASH_DEFAULT_TIMEOUT_MS": "60000"},',
    );
    expect(text).toContain(
      `      { "hooks": [{ "type": "command", "command": "terminal-notifier -message done" }] },\n      { "hooks": [{ "type": "command", "command": "${COMMAND}", "timeout": 30 }] }\n    ],`,
    );
    expect(text).toContain(
      `"SessionStart": [{ "matcher": "startup", "hooks": [{ "type": "command", "command": "cat ~/notes.md" }] }, { "matcher": "compact", "hooks": [{ "type": "command", "command": "${COMMAND}", "timeout": 30 }] }]`,
    );
  });

  it("a new file, and `{}`, get the layout the agents write themselves", () => {
    const fresh = installed(undefined);
    expect(fresh).toBe(
      `${JSON.stringify(
        {
          hooks: {
            Stop: [{ hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }],
            SessionStart: [
              { matcher: "compact", hooks: [{ type: "command", command: COMMAND, timeout: 30 }] },
            ],
          },
        },
        null,
        2,
      )}\n`,
    );
    expect(installed("{}\n")).toBe(fresh);
    expect(uninstalled(fresh)).toBe("{}\n");
  });

  it("a byte-order mark Claude Code reads stays in front", () => {
    const text = installed('\uFEFF{\n  "model": "opus"\n}\n');
    expect(text.startsWith('\uFEFF{\n  "model": "opus",\n  "hooks": {')).toBe(true);
  });

  it("an empty file Claude Code reads as none gets the new file's content", () => {
    expect(installed("")).toBe(installed(undefined));
    expect(installed("  \n")).toBe(installed(undefined));
    expect(uninstallHooks("", CLAUDE)).toEqual({ ok: true, text: "", changed: false, events: [] });
  });

  it("comments stay where they are, for an agent whose parser skips them", () => {
    const options: SettingsOptions = { ...CLAUDE, dialect: { ...CLAUDE_CODE_SETTINGS, comments: true } };
    const source =
      '{\n  // my settings\n  "model": "opus", /* the big one */\n  "theme": "dark" // dark\n}\n';
    const text = installed(source, ENTRIES, options);
    expect(text).toContain("// my settings");
    expect(uninstalled(text, options)).toBe(source);
    expect(refusal(source)).toMatch(/not valid JSON \(line 2, column 3/);
  });
});

describe("re-installing updates cxc's command only", () => {
  const old = "cxc hook claude-code";
  const users = `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          { "type": "command", "command": "notify-send done" },
          { "type": "command", "command": "${old}", "timeout": 90 },
          { "type": "command", "command": "say \\"cxc hook claude-code finished\\"" }
        ]
      }
    ],
    "SessionStart": [
      { "matcher": "compact|resume", "hooks": [{ "type": "command", "command": "${old}" }] }
    ]
  }
}
`;

  it("keeps the user's commands in cxc's group, their matcher and their timeout", () => {
    const result = installHooks(users, ENTRIES, CLAUDE);
    expect(result.ok && result.events).toEqual(["Stop", "SessionStart"]);
    const text = result.ok ? result.text : "";
    expect(text).toBe(users.split(`"${old}"`).join(`"${COMMAND}"`));
    expect(installHooks(text, ENTRIES, CLAUDE)).toMatchObject({ changed: false });
  });

  it("brings a matcher an earlier cxc wrote up to date, in a group of cxc's alone; a user's matcher stays", () => {
    const earlier = `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"${COMMAND}"}]}]}}`;
    const entry: HookEntry = {
      event: "SessionStart",
      matcher: "startup|resume|clear|compact",
      formerMatchers: ["compact"],
      command: COMMAND,
    };
    const result = installHooks(earlier, [entry], CLAUDE);
    expect(result).toMatchObject({ ok: true, changed: true, events: ["SessionStart"] });
    expect(result.ok && result.text).toBe(earlier.replace('"compact"', '"startup|resume|clear|compact"'));
    // The user's own matcher, and a group cxc shares with the user's hook, keep theirs.
    expect(installHooks(users.split(`"${old}"`).join(`"${COMMAND}"`), [entry], CLAUDE)).toMatchObject({
      changed: false,
    });
    const shared = `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"date"},{"type":"command","command":"${COMMAND}"}]}]}}`;
    expect(installHooks(shared, [entry], CLAUDE)).toMatchObject({ changed: false });
  });

  it("uninstall takes out cxc's hooks only, and the group it leaves empty", () => {
    expect(JSON.parse(uninstalled(users))).toEqual({
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: "notify-send done" },
              { type: "command", command: 'say "cxc hook claude-code finished"' },
            ],
          },
        ],
      },
    });
  });

  it("never replaces a user's command that mentions cxc's", () => {
    const source = readFileSync(join(CORPUS, "other-tools-hooks.json"), "utf8");
    const text = installed(source);
    expect(text).toContain('"command": "say \\"cxc hook claude-code finished\\""');
    expect(text).toContain('"command": "echo cxc hook claude-code >> ~/log"');
    expect(findHooks(text, CLAUDE)).toEqual({
      ok: true,
      value: [
        { event: "Stop", command: COMMAND },
        { event: "SessionStart", matcher: "compact", command: COMMAND },
      ],
    });
  });
});

describe("the documented exceptions to byte identity: empty containers the agent ignores", () => {
  it("an empty hooks table or list of cxc's event goes on uninstall; an empty root comes back as {}", () => {
    expect(uninstalled(installed('{\n  "hooks": {}\n}\n'))).toBe("{}\n");
    expect(uninstalled(installed('{"a": 1, "hooks": {"Stop": []}}'))).toBe('{"a": 1}');
    expect(uninstalled(installed("{ }"))).toBe("{}");
  });
});

describe("files the agent reads otherwise are refused, with one message, unchanged", () => {
  it("invalid JSON: the line and column, quoting nothing", () => {
    const error = refusal('{\n  "model": "opus",\n  "secret": sk-ant-123\n}');
    expect(error).toBe("settings.json is not valid JSON (line 3, column 13: unexpected character)");
    expect(refusal('{ "a": 1, }')).toMatch(/^settings\.json is not valid JSON \(line 1, column 11: /);
  });

  it("an empty file, said plainly where the agent refuses one", () => {
    expect(refusal("", CODEX)).toBe(
      "hooks.json is an empty file, which Codex does not read: write {} in it, or delete it",
    );
  });

  it("a byte-order mark where the agent refuses one", () => {
    expect(refusal("\uFEFF{}", CODEX)).toBe(
      "hooks.json starts with a byte-order mark (U+FEFF), which Codex does not read: remove it (the file's first three bytes)",
    );
  });

  it("`hooks` twice, or a key twice on its path", () => {
    const twice = '{\n  "hooks": {},\n  "model": "x",\n  "hooks": {"Stop": []}\n}';
    expect(refusal(twice)).toBe(
      "settings.json has `hooks` twice (lines 2 and 4); Claude Code reads only the last one: merge them into one",
    );
    expect(refusal('{"hooks": {"Stop": [], "Stop": []}}', CODEX)).toBe(
      "hooks.json has `hooks.Stop` twice (lines 1 and 1); Codex refuses such a file: merge them into one",
    );
    expect(
      refusal('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "command": "b"}]}]}}'),
    ).toMatch(/`hooks\.Stop\[0\]\.hooks\[0\]\.command` twice/);
    // Elsewhere a key twice is not cxc's business.
    expect(installHooks('{"env": {"A": "1", "A": "2"}}', ENTRIES, CLAUDE).ok).toBe(true);
  });

  it("shapes cxc cannot add to, and nesting past the limit", () => {
    expect(refusal("[]")).toBe("settings.json does not hold a JSON object");
    expect(refusal('{"hooks": []}')).toBe("settings.json has `hooks` that is not a table of events");
    expect(refusal('{"hooks": {"Stop": {}}}')).toBe("settings.json has `hooks.Stop` that is not a list");
    expect(refusal(`{"a": ${"[".repeat(300)}${"]".repeat(300)}}`)).toBe(
      "settings.json nests deeper than 256 levels",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Generated documents
// ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** How a generated document is laid out: each container inline or not, and the file's habits. */
interface Layout {
  readonly unit: string;
  readonly eol: string;
  readonly colon: string;
  readonly comma: string;
  readonly pad: string;
  /** Containers from this depth down are on one line (0: the whole file is). */
  readonly inlineFrom: number;
  /** Per container, in order: inline even above `inlineFrom`. */
  readonly inline: readonly boolean[];
  readonly ascii: boolean;
  readonly final: string;
  readonly bom: boolean;
}

function layoutText(value: Json, layout: Layout): string {
  let counter = 0;
  const string = (text: string): string =>
    layout.ascii
      ? JSON.stringify(text).replace(
          /[\u007f-\uffff]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        )
      : JSON.stringify(text);
  const write = (node: Json, depth: number, indent: string): string => {
    if (node === null || typeof node !== "object")
      return typeof node === "string" ? string(node) : JSON.stringify(node);
    const items = Array.isArray(node)
      ? node.map((item) => [undefined, item] as const)
      : Object.entries(node).map(([key, item]) => [key, item] as const);
    const [open, close] = Array.isArray(node) ? ["[", "]"] : ["{", "}"];
    if (items.length === 0) return open + close;
    const inline = depth >= layout.inlineFrom || layout.inline[counter++ % layout.inline.length] === true;
    const inner = indent + layout.unit;
    const parts = items.map(
      ([key, item]) =>
        (key === undefined ? "" : string(key) + layout.colon) +
        write(item, depth + 1, inline ? indent : inner),
    );
    if (inline) return open + layout.pad + parts.join(layout.comma) + layout.pad + close;
    return `${open}${layout.eol}${parts.map((part) => inner + part).join(`,${layout.eol}`)}${layout.eol}${indent}${close}`;
  };
  return (layout.bom ? "\uFEFF" : "") + write(value, 0, "") + layout.final;
}

const layouts: fc.Arbitrary<Layout> = fc.record({
  unit: fc.constantFrom("  ", "    ", "\t", " "),
  eol: fc.constantFrom("\n", "\r\n"),
  colon: fc.constantFrom(": ", ":", " : "),
  comma: fc.constantFrom(", ", ","),
  pad: fc.constantFrom("", " "),
  inlineFrom: fc.integer({ min: 0, max: 6 }),
  inline: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  ascii: fc.boolean(),
  final: fc.constantFrom("", "\n", "\r\n", "\n\n"),
  bom: fc.boolean(),
});

/** Commands of other tools, some mentioning cxc's: none of them cxc's. */
const usersCommand = fc.oneof(
  fc.constantFrom(
    'say "cxc hook claude-code finished"',
    "echo cxc hook claude-code",
    "cxc hook claude-code --verbose",
    "cxc hook codex",
    "notify-send done",
    "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh",
  ),
  fc.string(),
);

const hookObject = fc
  .tuple(usersCommand, fc.option(fc.nat(600), { nil: undefined }), fc.boolean())
  .map(([command, timeout, typeLast]): Json => {
    const base: Record<string, Json> = typeLast ? { command, type: "command" } : { type: "command", command };
    return timeout === undefined ? base : { ...base, timeout };
  });

const group = fc
  .tuple(
    fc.option(fc.constantFrom("compact", "startup", "Bash", "", "Edit|Write"), { nil: undefined }),
    fc.array(hookObject, { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([matcher, hooks, matcherLast]): Json => {
    if (matcher === undefined) return { hooks };
    return matcherLast ? { hooks, matcher } : { matcher, hooks };
  });

const events = fc
  .uniqueArray(
    fc.tuple(
      fc.oneof(
        fc.constantFrom("Stop", "SessionStart", "PreToolUse", "PostToolUse", "Notification"),
        fc.string(),
      ),
      fc.array(group, { minLength: 1, maxLength: 3 }),
    ),
    { selector: ([event]) => event, minLength: 1, maxLength: 4 },
  )
  .map((pairs): Json => Object.fromEntries(pairs));

/** A settings document: the user's keys, and maybe a `hooks` table among them. */
const documents = fc
  .tuple(
    fc.uniqueArray(
      fc.tuple(
        fc.string().filter((key) => key !== "hooks"),
        fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
      ),
      {
        selector: ([key]) => key,
        maxLength: 5,
      },
    ),
    fc.option(events, { nil: undefined }),
    fc.nat(),
  )
  .map(([pairs, hooks, at]): Json => {
    const members: [string, Json][] = [...pairs];
    if (hooks !== undefined) members.splice(at % (members.length + 1), 0, ["hooks", hooks]);
    return Object.fromEntries(members);
  });

/** The value `installHooks` must give: the user's, plus a group per event without cxc's hook. */
function expectedAfterInstall(value: Record<string, Json>): Record<string, Json> {
  const hooks = { ...((value.hooks as Record<string, Json[]> | undefined) ?? {}) };
  for (const entry of ENTRIES) {
    const group = {
      ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }),
      hooks: [{ type: "command", command: entry.command, timeout: entry.timeout! }],
    };
    hooks[entry.event] = [...(hooks[entry.event] ?? []), group];
  }
  return { ...value, hooks };
}

describe("generated documents (fast-check)", () => {
  it("install then uninstall gives every byte back; install adds cxc's groups and nothing else", () => {
    fc.assert(
      fc.property(documents, layouts, (value, layout) => {
        const text = layoutText(value, layout);
        const result = installHooks(text, ENTRIES, CLAUDE);
        if (!result.ok) throw new Error(`${result.error}\n${text}`);
        const parse = (json: string) => JSON.parse(json.replace(/^\uFEFF/, "")) as Record<string, Json>;
        expect(parse(result.text)).toEqual(expectedAfterInstall(parse(text)));
        expect(uninstalled(result.text)).toBe(text);
        expect(installHooks(result.text, ENTRIES, CLAUDE)).toMatchObject({ changed: false });
      }),
      { numRuns: 200 },
    );
  });

  it("cxc's own hooks among the user's: install updates their command only, uninstall takes only them", () => {
    const oldCommand = "cxc hook claude-code";
    const withOurs = fc.tuple(documents, fc.nat(), fc.nat()).map(([value, a, b]) => {
      const root = value as Record<string, Json>;
      const hooks = (root.hooks ?? {}) as Record<string, Json[]>;
      const names = Object.keys(hooks);
      if (names.length === 0) return root;
      const groups = hooks[names[a % names.length]!]!;
      const target = groups[b % groups.length] as { hooks: Json[] };
      target.hooks.splice(b % (target.hooks.length + 1), 0, { type: "command", command: oldCommand });
      return root;
    });
    fc.assert(
      fc.property(withOurs, layouts, (value, layout) => {
        const text = layoutText(value, layout);
        const result = installHooks(text, ENTRIES, CLAUDE);
        if (!result.ok) throw new Error(result.error);
        // Exactly the old command's text was replaced; everything else is as it was.
        const updated = uninstalled(result.text);
        const direct = uninstalled(text);
        expect(updated.replace(/^\uFEFF/, "")).toBe(direct.replace(/^\uFEFF/, ""));
        const users = (hooks: unknown): string[] =>
          JSON.stringify(hooks ?? {})
            .match(/"command":"(?:[^"\\]|\\.)*"/g)
            ?.filter((command) => command !== `"command":"${oldCommand}"`) ?? [];
        expect(users(JSON.parse(direct.replace(/^\uFEFF/, "")).hooks)).toEqual(
          users((value as Record<string, Json>).hooks),
        );
        const found = findHooks(result.text, CLAUDE);
        expect(found.ok && found.value.every((hook) => hook.command === COMMAND)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
