// Plays an agent (Claude Code or Codex) for `cxc mcp`'s tests: one process that runs cxc's
// hook (`session.hook_event_name`: Stop or SessionStart) through a shell, as the agent does, then starts `cxc mcp` as its own child
// with the official MCP SDK client, lists the tools and makes the calls given. Prints one JSON
// document: { tools, results: [{ text, isError }] }.
//
// A call may instead change a file between calls, as the agent writes its transcript:
// { append: text, path } appends, { write: text, path } writes it over in place (truncating it),
// { replace: text, path } writes another file and renames it over the path.
//
// argv: JSON { bin, agent, session?: { hook_event_name?, session_id, transcript_path, cwd, source? }, calls: [args] }
import { spawnSync } from "node:child_process";
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const plan = JSON.parse(process.argv[2]);
if (plan.session !== undefined) {
  const hook = spawnSync("/bin/sh", ["-c", `'${process.execPath}' '${plan.bin}' hook ${plan.agent}`], {
    input: JSON.stringify({ hook_event_name: "Stop", ...plan.session }),
    env: process.env,
    encoding: "utf8",
  });
  if (hook.status !== 0) throw new Error(`the hook failed: ${hook.stderr}`);
}
const client = new Client({ name: "test-agent", version: "1.0.0" });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [plan.bin, "mcp", "--agent", plan.agent],
    env: process.env,
    stderr: "inherit",
  }),
);
const tools = (await client.listTools()).tools;
const results = [];
for (const args of plan.calls) {
  if (args.append !== undefined) appendFileSync(args.path, args.append);
  else if (args.write !== undefined) writeFileSync(args.path, args.write);
  else if (args.replace !== undefined) {
    writeFileSync(`${args.path}.new`, args.replace);
    renameSync(`${args.path}.new`, args.path);
  }
  if (args.path !== undefined) continue;
  const result = await client.callTool({ name: "recall", arguments: args });
  results.push({ text: result.content.map((part) => part.text).join(""), isError: result.isError === true });
}
await client.close();
process.stdout.write(`${JSON.stringify({ tools, results })}\n`);
