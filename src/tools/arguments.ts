/**
 * A tool's arguments as one object: the JSON Schema the model is shown, and the check a call's
 * arguments must pass, which gives the tool its typed arguments, from one source so the two cannot
 * drift. Built-in tools derive both from the zod schema that validates their calls (`zodArguments`,
 * on core/zod-schema.ts, as the advisor's forced tools do); local command tools give a JSON Schema
 * in configuration, which ajv checks (`jsonSchemaArguments`, loaded on first use). The turn loop
 * checks a call's arguments once, before anything else sees them (tool.ts, `checkArguments`).
 */
import type { ValidateFunction } from "ajv";
import type * as z from "zod";
import { checkWith, describeIssues, jsonSchemaOf, onFirstUse } from "../core/zod-schema.js";

export { describeIssues, jsonSchemaOf } from "../core/zod-schema.js";

/** The outcome of checking a call's arguments. */
export type ArgumentsCheck<A> =
  | { readonly ok: true; readonly value: A }
  | {
      readonly ok: false;
      /** What the model is told (the tool result). */
      readonly message: string;
      /** The problems, one line each. */
      readonly problems: readonly string[];
      /** Set when the schema itself cannot be used (a local tool's, as configured). */
      readonly invalidSchema?: string;
    };

/** A tool's arguments (see the module comment); `A` is what a call that passes is, typed. */
export interface ToolArguments<A = Readonly<Record<string, unknown>>> {
  /** The JSON Schema of the arguments object, as sent to the model. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Checks a call's arguments: the typed arguments to run with (defaults filled in), or why not. */
  check(argumentsObject: Readonly<Record<string, unknown>>): Promise<ArgumentsCheck<A>>;
}

/**
 * A built-in tool's arguments, checked by the schema `build` makes; `message` words the problems
 * for the model (default: the first one). The schema is built the first time the tool is offered
 * or called, not when a turn loads the tool's module.
 */
export function zodArguments<A>(
  build: () => z.ZodType<A>,
  message: (problems: readonly string[], issues: readonly z.core.$ZodIssue[]) => string = (
    _problems,
    issues,
  ) => issues[0]?.message ?? "invalid arguments",
): ToolArguments<A> {
  const schema = onFirstUse(build);
  return {
    // Derived the first time it is read: most turns offer the built-in tools to no model.
    get schema() {
      return lazySchema(schema());
    },
    check: async (argumentsObject) => {
      const checked = checkWith(schema(), argumentsObject);
      if (checked.ok) return checked;
      const problems = describeIssues(checked.issues);
      return { ok: false, problems, message: message(problems, checked.issues) };
    },
  };
}

const derived = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON Schema of `schema`, derived once, the first time a tool's schema is read. */
export function lazySchema(schema: z.ZodType): Record<string, unknown> {
  let json = derived.get(schema);
  if (json === undefined) {
    json = jsonSchemaOf(schema);
    derived.set(schema, json);
  }
  return json;
}

/**
 * The arguments of a tool that takes none: shown to the model as an empty object, and never
 * refused (a stray field changes nothing).
 */
export const NO_ARGUMENTS: ToolArguments<Readonly<Record<string, never>>> = {
  schema: { type: "object", properties: {}, additionalProperties: false },
  check: async () => ({ ok: true, value: {} }),
};

/**
 * A local command tool's arguments: the JSON Schema of its configuration, checked by ajv, compiled
 * on the first call (ajv is an island, loaded only then). A schema ajv cannot compile fails every
 * call with `invalidSchema`. `name` is the tool's, for the messages.
 */
export function jsonSchemaArguments(
  schema: Readonly<Record<string, unknown>>,
  name = "the tool",
): ToolArguments {
  let validate: Promise<ValidateFunction> | undefined;
  return {
    schema,
    check: async (argumentsObject) => {
      let compiled: ValidateFunction;
      try {
        validate ??= compileSchema(schema);
        compiled = await validate;
      } catch (error) {
        validate = undefined;
        const invalidSchema = (error as Error).message;
        return {
          ok: false,
          problems: [],
          invalidSchema,
          message: `conversation.tools.${name}.parameters is not a valid JSON Schema: ${invalidSchema}`,
        };
      }
      // useDefaults fills in schema defaults, so validate a copy.
      const value = structuredClone(argumentsObject) as Record<string, unknown>;
      if (compiled(value)) return { ok: true, value };
      const problems = (compiled.errors ?? []).map(
        (error) =>
          `${error.instancePath === "" ? "arguments" : error.instancePath} ${error.message ?? "invalid"}`,
      );
      return { ok: false, problems, message: `Invalid arguments for ${name}:${describeProblems(problems)}` };
    },
  };
}

/** The problems after `Invalid arguments for NAME:`: one on the same line, several as a list. */
export function describeProblems(problems: readonly string[]): string {
  if (problems.length === 0) return " they do not match the schema";
  return problems.length === 1 ? ` ${problems[0]}` : problems.map((problem) => `\n- ${problem}`).join("");
}

async function compileSchema(schema: Readonly<Record<string, unknown>>): Promise<ValidateFunction> {
  const { Ajv } = await import("ajv");
  return new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(schema);
}
