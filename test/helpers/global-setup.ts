/**
 * Builds dist/ once before the suite, so end-to-end tests spawn the real `bin/cxc`.
 * Set CXC_TEST_SKIP_BUILD=1 when dist/ is known to be fresh.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  if (process.env.CXC_TEST_SKIP_BUILD === "1") return;
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/tsup/dist/cli-default.js", "--silent"], {
    cwd: root,
    stdio: "inherit",
  });
}
