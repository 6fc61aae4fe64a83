/**
 * Where cxc reads and writes, in words for `ls`, `show`, `config show` and `cxc` alone: the store
 * and why it is there (a workspace, `CXC_HOME`, `XDG_DATA_HOME`, the default), and the user's
 * configuration file as `XDG_CONFIG_HOME` places it.
 */
import type { StoreLocation } from "../../store/index.js";

/** `/home/me/.local/share/cxc (the default; CXC_HOME sets another)`. */
export function describeStoreLocation(location: StoreLocation): string {
  const why =
    location.kind === "workspace"
      ? "the workspace of this directory, from cxc init"
      : location.origin === "default"
        ? "the default; CXC_HOME sets another"
        : `from ${location.origin}`;
  return `${location.root} (${why})`;
}
