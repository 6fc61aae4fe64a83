/**
 * Issue 3's token report: for every conversation of the jp fixture workspace, the o200k tokens of
 * what the model sees raw, after the built-in default rule, and after `-k s:..-2` (a summary of all
 * but the last two turns, by the built-in digest since no model is configured).
 *
 *   node bench/jp-tokens.mjs [--format json]
 *
 * Every number comes from cxc itself: `conversation stats` for the raw view and
 * `conversation compact --dry-run` for the two rules, against a temporary store. Nothing is timed.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { formatTable, JP_CONVERSATIONS, makeTemporaryHome, runCxc } from "./lib.mjs";

/** The tokens after a dry run of `args`, or the raw count when the rule selects nothing. */
function afterDryRun(home, id, args, raw) {
  const document = JSON.parse(
    runCxc(["--format", "json", "conversation", "compact", "--dry-run", ...args, id], home.env),
  );
  return document.tokens?.after ?? raw;
}

function main() {
  let names;
  try {
    names = readdirSync(JP_CONVERSATIONS).filter((name) => !name.startsWith("."));
  } catch {
    process.stderr.write(`jp-tokens: ${JP_CONVERSATIONS} is absent; skipping\n`);
    return;
  }
  const home = makeTemporaryHome("jp-tokens");
  try {
    const rows = [];
    for (const name of names.sort()) {
      const imported = JSON.parse(
        runCxc(
          ["--format", "json", "conversation", "import", join(JP_CONVERSATIONS, name), "--from", "jp"],
          home.env,
        ),
      );
      const { id, turns } = (imported.imported ?? imported)[0];
      const raw = JSON.parse(runCxc(["--format", "json", "conversation", "stats", id], home.env)).raw.total;
      rows.push({
        conversation: name,
        turns,
        raw,
        default_rule: afterDryRun(home, id, [], raw),
        summary_all_but_last_2: afterDryRun(home, id, ["-k", "s:..-2"], raw),
      });
    }
    if (process.argv.includes("--format") && process.argv.includes("json")) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    const number = (value) => value.toLocaleString("en");
    process.stdout.write(
      `${formatTable(
        ["jp conversation", "turns", "raw", "default rule", "-k s:..-2"],
        rows.map((row) => [
          row.conversation,
          String(row.turns ?? "?"),
          number(row.raw),
          number(row.default_rule),
          number(row.summary_all_but_last_2),
        ]),
      )}\n`,
    );
  } finally {
    home.remove();
  }
}

main();
