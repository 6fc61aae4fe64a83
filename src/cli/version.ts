/**
 * The version, in a module of its own so `cxc --version` loads nothing else.
 */
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
