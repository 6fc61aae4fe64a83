/**
 * Ctrl-C (or SIGTERM) while a command waits on a model, such as a summary being written: the
 * first one aborts the work's signal, so the command stops and says what happened (nothing is
 * applied half-way); a second one exits at once. `cxc q` has its own handling (src/query/run-query.ts).
 */
import { ExitCode } from "../errors.js";

/** Runs `action` with a signal that the first Ctrl-C aborts. */
export async function withInterrupts<T>(action: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await action(controller.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
