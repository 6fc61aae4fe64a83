#!/usr/bin/env node
/**
 * Runs the loopback fake provider (fake-provider.ts) as a standalone process for end-to-end tests.
 *
 *   node test/helpers/fake-provider-cli.mjs --script replies.json --record requests.json [--port N]
 *
 * `replies.json` holds a JSON array of scripted replies (or `{ "replies": [...], "routes": [...] }`),
 * in the shapes `FakeReply` and `FakeRoute` document. Once listening, one JSON line `{"url": "...", "anthropicBaseURL": "...",
 * "openaiBaseURL": "..."}` is printed to stdout. After every request the whole list of recorded
 * requests is written to the record file (atomically, so a reader never sees half a file).
 * SIGTERM or SIGINT stops the server.
 *
 * The TypeScript module is transpiled with esbuild (see load-ts.mjs), so this works on any Node 20
 * without type-stripping flags.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadTsModule } from "./load-ts.mjs";

const { values } = parseArgs({
  options: {
    script: { type: "string" },
    record: { type: "string" },
    port: { type: "string", default: "0" },
  },
});

function readScript(path) {
  if (path === undefined) return { replies: [], routes: [] };
  const script = JSON.parse(readFileSync(path, "utf8"));
  return Array.isArray(script)
    ? { replies: script, routes: [] }
    : { replies: script.replies ?? [], routes: script.routes ?? [] };
}

const { startFakeProvider } = await loadTsModule(
  join(dirname(fileURLToPath(import.meta.url)), "fake-provider.ts"),
);
const recordPath = values.record;
const requests = [];
const script = readScript(values.script);
const provider = await startFakeProvider({
  replies: script.replies,
  routes: script.routes,
  port: Number(values.port),
  onRequest: (request) => {
    requests.push(request);
    if (recordPath === undefined) return;
    const temporary = `${recordPath}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(requests, null, 2)}\n`);
    renameSync(temporary, recordPath);
  },
});
if (recordPath !== undefined) writeFileSync(recordPath, "[]\n");
process.stdout.write(
  `${JSON.stringify({ url: provider.url, anthropicBaseURL: provider.anthropicBaseURL, openaiBaseURL: provider.openaiBaseURL })}\n`,
);

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    provider.close().then(() => process.exit(0));
  });
}
