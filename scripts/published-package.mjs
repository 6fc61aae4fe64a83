#!/usr/bin/env node
/**
 * The published form of cxc, proved as a user would meet it (run by .ci/run; it needs the npm
 * registry for the package's dependencies, which the offline test suite never does):
 *
 * 1. `npm pack` the checkout (built already);
 * 2. install the tarball globally into a temporary prefix, as `npm install -g cxc` would;
 * 3. `cxc --version` from that prefix's bin;
 * 4. the demo that ships in the package, run against the installed cxc;
 * 5. `pi install <the installed package>` into a temporary HOME (the pinned pi of agents/), as
 *    `pi install npm:cxc` installs it, and one offline pi run against the loopback fake provider
 *    whose request offers cxc's tools: pi loaded the extension;
 * 6. the `cxc/advisor` entry, as a user's test imports it from a project that depends on the
 *    installed package: `advise` with the offline mock gives the expected tier, and a TypeScript file
 *    using it typechecks against the package's declarations.
 *
 * Everything is written under one temporary directory, removed at the end. Exits 1 naming the step
 * that failed.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "cxc-published-"));
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;

/** The fake provider pi talks to, once started (stopped on every way out). */
let fake;

function fail(step, detail) {
  fake?.kill();
  process.stderr.write(`published package: ${step} failed${detail ? `:\n${detail}` : ""}\n`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

function run(step, command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  if (result.status !== 0) fail(step, `${result.stdout ?? ""}${result.stderr ?? ""}`.trim());
  return result.stdout;
}

// 1. The tarball (`--ignore-scripts`: the checkout is built; packing never rebuilds it).
const packed = JSON.parse(
  run("npm pack", "npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: root }),
);
const tarball = join(work, packed[0].filename);
process.stdout.write(`packed ${packed[0].filename} (${packed[0].entryCount} files)\n`);

// 2. A global install into a prefix of its own.
const prefix = join(work, "prefix");
run("npm install -g", "npm", ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", tarball]);
const installed = join(prefix, "lib", "node_modules", "cxc");
const bin = join(prefix, "bin", "cxc");
if (!existsSync(bin)) fail("npm install -g", `no cxc in ${join(prefix, "bin")}`);

// 3. The version, from the installed bin.
const reported = run("cxc --version", bin, ["--version"]).trim();
if (reported !== version) fail("cxc --version", `printed ${reported}, expected ${version}`);
process.stdout.write(`cxc --version: ${reported}\n`);

// 4. The demo the package ships, on the installed cxc.
const demo = run("the demo", process.execPath, [join(installed, "scripts", "demo.mjs")], {
  env: { ...process.env, NO_COLOR: "1" },
});
if (!/Compacted turns 2\.\.19/.test(demo)) fail("the demo", demo);
process.stdout.write("the demo ran on the installed package\n");

// 5. pi install, and one pi run that offers cxc's tools.
const pi = join(root, "agents", "node_modules", ".bin", "pi");
if (!existsSync(pi)) fail("pi install", "pi is not installed: run npm ci --prefix agents");
const home = join(work, "home");
const piEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  TMPDIR: join(home, ".tmp"),
  LANG: "C.UTF-8",
  TERM: "dumb",
  NO_COLOR: "1",
  PI_OFFLINE: "1",
};
mkdirSync(piEnv.TMPDIR, { recursive: true });
fake = spawn(process.execPath, [
  join(root, "test", "helpers", "fake-provider-cli.mjs"),
  "--script",
  writeScript(),
  "--record",
  join(work, "requests.json"),
]);
const url = await new Promise((resolve) => {
  let output = "";
  fake.stdout.on("data", (chunk) => {
    output += chunk;
    const line = output.split("\n")[0];
    if (output.includes("\n")) resolve(JSON.parse(line).url);
  });
  fake.on("exit", () => resolve(undefined));
});
if (url === undefined) fail("pi install", "the fake provider did not start");
try {
  writePiConfig(url);
  run("pi install", pi, ["install", installed], { cwd: work, env: piEnv });
  run("pi with the package", pi, ["--provider", "fake", "--model", "claude-fake", "-p", "hi"], {
    cwd: work,
    env: piEnv,
  });
  const requests = JSON.parse(readFileSync(join(work, "requests.json"), "utf8"));
  const tools = (requests[0]?.body?.tools ?? []).map((tool) => tool.name);
  if (!tools.includes("should_i_compact") || !tools.includes("compact_now")) {
    fail("pi with the package", `pi's request offered ${tools.join(", ") || "no tools"}`);
  }
  process.stdout.write(
    "pi install loaded the package: its request offers should_i_compact and compact_now\n",
  );
} finally {
  fake.kill();
}

// 6. cxc/advisor from a project that depends on the installed package (resolved through its
//    `exports`), in JavaScript and in TypeScript.
if (!existsSync(join(installed, "dist", "advisor", "index.d.ts"))) {
  fail("cxc/advisor", "dist/advisor/index.d.ts is not in the package: run npm run build:types first");
}
const project = join(work, "project");
mkdirSync(join(project, "node_modules"), { recursive: true });
symlinkSync(installed, join(project, "node_modules", "cxc"), "dir");
writeFileSync(join(project, "package.json"), '{ "type": "module", "private": true }\n');
const usage = [
  'import { advise, mockDecisionClient } from "cxc/advisor";',
  "const ts = new Date(0).toISOString();",
  "const turn = (n) => [",
  '  { type: "turn_start", id: "t" + n, ts },',
  '  { type: "chat_request", id: "q" + n, ts, content: "question " + n },',
  '  { type: "chat_response", id: "a" + n, ts, message: "answer " + n },',
  "];",
  "const result = await advise({",
  "  client: mockDecisionClient({ switched_gears: 0.9, at_boundary: 0.8, needs_history: 0, mid_operation: 0.1 }),",
  "  events: [...turn(1), ...turn(2)],",
  "  usage: { tokens: 105_000, pct: 52.5 },",
  "});",
  "console.log(result.decision.tier);",
  "",
].join("\n");
writeFileSync(join(project, "advise.mjs"), usage);
const tier = run("cxc/advisor", process.execPath, ["advise.mjs"], { cwd: project }).trim();
if (tier !== "recommend") fail("cxc/advisor", `the mock's tier was ${tier}, expected recommend`);
writeFileSync(
  join(project, "advise.ts"),
  usage
    .replace(
      "const turn = (n) => [",
      'import type { ConversationEvent } from "cxc/advisor";\nconst turn = (n: number): ConversationEvent[] => [',
    )
    .replace(
      "console.log(result.decision.tier);",
      'const tier: "silent" | "notice" | "recommend" | "request" = result.decision.tier;\nconsole.log(tier);',
    ),
);
writeFileSync(
  join(project, "tsconfig.json"),
  `${JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ["advise.ts"] }, null, 2)}\n`,
);
run(
  "cxc/advisor's types",
  process.execPath,
  [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project],
  {
    cwd: project,
  },
);
process.stdout.write("cxc/advisor: the offline mock gave recommend, and its types check\n");

rmSync(work, { recursive: true, force: true });

function writeScript() {
  const path = join(work, "replies.json");
  writeFileSync(path, JSON.stringify([{ blocks: [{ type: "text", text: "Hello." }] }]));
  return path;
}

function writePiConfig(baseUrl) {
  const directory = join(home, ".pi", "agent");
  mkdirSync(directory, { recursive: true });
  const models = {
    providers: {
      fake: { baseUrl, api: "anthropic-messages", apiKey: "fake-key", models: [{ id: "claude-fake" }] },
    },
  };
  writeFileSync(join(directory, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
  writeFileSync(join(directory, "settings.json"), "{}\n");
}
