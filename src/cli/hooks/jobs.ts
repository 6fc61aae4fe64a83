/**
 * The hook's two jobs, one module: run-hook.ts imports it only once a job has work to do, and the
 * build makes it a bundle of its own (dist/hook-jobs.cjs), so the silent path of `cxc hook` does
 * not even compile the advisor, the converters or the schemas.
 */
export { adviseInAgent } from "./hook-advise.js";
export { restoreAfterCompaction, restoreInGeminiRequest, restoreInOpencode } from "./hook-restore.js";
