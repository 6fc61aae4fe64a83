#!/usr/bin/env node
// `--version` is answered from a tiny module; everything else goes through the full CLI.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { VERSION } = await import("../dist/cli/version.js");
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import("../dist/cli/main.js");
  await main(args);
}
