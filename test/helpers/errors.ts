/**
 * Catching cxc's typed errors in tests.
 */
import { CxcError } from "../../src/errors.js";

/** Runs `action` and returns the CxcError it throws; fails the test if it throws nothing or another error. */
export function caughtCxcError(action: () => unknown): CxcError {
  try {
    action();
  } catch (error) {
    if (error instanceof CxcError) return error;
    throw error;
  }
  throw new Error("expected a CxcError, nothing was thrown");
}
