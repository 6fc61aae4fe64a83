/**
 * The rules one compaction run uses (docs/compaction-model.md, "One compact run", step 4): the configured
 * `conversation.compaction.rules` (the built-in default rule when the key is absent), combined with
 * the explicit rules from `-r/-t/-s` and `-k` (explicit rules replace the configured ones unless a
 * bare `-k` asks for both), with `-m` pointing every summary rule at one model.
 */
import { combineRules } from "../../compaction/core/spec.js";
import { type ConfigTable, lookupConfig } from "../../core/config.js";
import {
  type CompactionRule,
  configuredRules,
  overrideSummaryModel,
  readCompactionRules,
} from "../../compaction/core/rules.js";
import { CxcError } from "../../errors.js";
import type { ExplicitRules } from "./options.js";

/** `conversation.compaction.rules`, or the built-in default rule when it is not set. */
export function readConfiguredRules(config: ConfigTable): CompactionRule[] {
  const configured = lookupConfig(config, "conversation.compaction.rules");
  if (configured === undefined) return configuredRules(undefined);
  const read = readCompactionRules(configured);
  if (!read.ok) {
    throw new CxcError("invalid-config", `conversation.compaction.${read.message}`, {
      hint: "check `cxc config show` and docs/compaction.md for the rule schema",
    });
  }
  return configuredRules(read.value);
}

/** The rules of the run, in order. */
export function buildEffectiveRules(
  config: ConfigTable,
  explicit: ExplicitRules,
  model?: string,
): CompactionRule[] {
  const rules = combineRules(readConfiguredRules(config), explicit.useConfigRules, explicit.rules);
  return model === undefined ? rules : overrideSummaryModel(rules, model);
}
