/**
 * Injected into the provider SDK islands (tsup.config.ts): the SDKs build request headers with the
 * global `Headers` and test bodies against the global `FormData`, and on Node 20 touching either
 * global loads all of undici (about 15 ms of every turn), which cxc's transport, node-fetch, does
 * not use. In those bundles, and only there, both names are node-fetch's classes, which node-fetch
 * handles as its own.
 */
export { FormData, Headers } from "node-fetch";
