/**
 * What a compaction keeps by construction, read from configuration for a conversation: the facts
 * block's budget, the keep rules, and the working directory of the session it came from
 * (compaction/core/keeping.ts). A bad setting is an error before anything is planned.
 */
import { type Keeping, readKeeping } from "./core/keeping.js";
import type { ConfigTable } from "../core/config.js";
import { originCwd } from "../core/interop/agents.js";
import { CxcError } from "../errors.js";

/** The keeping of a conversation with metadata `meta` under `config`; throws `invalid-config`. */
export function keepingFor(config: ConfigTable, meta: Readonly<Record<string, unknown>>): Keeping {
  const read = readKeeping(config, originCwd(meta));
  if (!read.ok) {
    throw new CxcError("invalid-config", read.message, {
      hint: 'check `cxc config show` and docs/compaction.md ("What a compaction keeps")',
    });
  }
  return read.value;
}
