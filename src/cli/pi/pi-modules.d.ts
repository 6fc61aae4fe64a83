/**
 * What the cxc extension imports from pi's own packages, which pi resolves for its extensions at
 * run time (they are not dependencies of cxc; tsup leaves them external). Typed by pi-api.ts.
 */
declare module "@mariozechner/pi-ai" {
  export const complete: import("./pi-api.js").PiComplete;
}
declare module "@mariozechner/pi-coding-agent" {
  export const compact: import("./pi-api.js").PiCompact;
}
