/**
 * Summary texts for the summary segments of a compaction plan.
 *
 * The model is the rule's `summary.model.id` (which `-m` rewrites), else the assistant model
 * (`assistant.model.id`, else the first provider with a key or a reachable Ollama). When no model
 * is available at all, the deterministic `builtin/digest` writes the summary and stderr says so;
 * `-m builtin/digest` asks for it outright and always works offline.
 *
 * The input is always the RAW turns of the (extended) range, never a projected view (jp's
 * raw-stream invariant). A model summary is accepted only when the response finished normally
 * with text; otherwise this throws `summary-failed` naming the model and the reason and suggesting
 * the digest, and the caller applies nothing. After a summary exists, the summary check lists
 * what it lost, and a convenience copy goes to `<tmpdir>/<id>-summary-<from>-<to>.md`.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigTable } from "../../core/config.js";
import { DIGEST_RECIPE, digestTurns } from "../../core/digest.js";
import type { SummaryPolicy } from "../../core/events.js";
import type { CompactionSegment } from "../../core/plan-compaction.js";
import type { SummaryRule } from "../../core/rules.js";
import { checkSummary, type SummaryLosses } from "../../core/summary-check.js";
import type { Turn } from "../../core/turns.js";
import { CxcError, errorMessage } from "../../errors.js";
import type { LlmClient, LlmStreamEvent } from "../../llm/types.js";
import { startProgress } from "./progress.js";

/** The environment variables and configuration summaries need. */
export interface SummaryEnvironment {
  readonly config: ConfigTable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly conversationId: string;
  /** Where progress and notices go; undefined keeps the run silent (`fork -k`). */
  readonly stderr?: NodeJS.WriteStream;
}

/** Which summarizer a rule uses. */
export type SummaryModelChoice =
  | { readonly kind: "digest"; readonly notice?: string }
  | { readonly kind: "model"; readonly id: string; readonly explicit: boolean };

/** A generated summary and what the check found missing. */
export interface GeneratedSummary {
  readonly policy: SummaryPolicy;
  readonly modelId: string;
  readonly losses: SummaryLosses;
  /** The temp-file copy, when it could be written. */
  readonly path?: string;
}

const NO_MODEL_NOTICE = `No model is configured; summarizing with ${DIGEST_RECIPE} (offline, deterministic).`;

/** Picks the summarizer of a rule (see the module comment). */
export async function chooseSummaryModel(
  summary: SummaryRule,
  environment: Pick<SummaryEnvironment, "config" | "env">,
): Promise<SummaryModelChoice> {
  const explicit = summary.model?.id;
  if (explicit !== undefined && explicit.length > 0) {
    return explicit === DIGEST_RECIPE ? { kind: "digest" } : { kind: "model", id: explicit, explicit: true };
  }
  const { selectDefaultModel } = await import("../../llm/registry.js");
  try {
    const id = await selectDefaultModel({ config: environment.config, env: environment.env });
    return id === DIGEST_RECIPE ? { kind: "digest" } : { kind: "model", id, explicit: false };
  } catch (error) {
    if (CxcError.isInstance(error) && error.code === "no-model-configured") {
      return { kind: "digest", notice: NO_MODEL_NOTICE };
    }
    throw error;
  }
}

/** Generates the summary of one segment from the raw turns of the snapshot. */
export async function generateSegmentSummary(
  rawTurns: readonly Turn[],
  segment: CompactionSegment,
  environment: SummaryEnvironment,
): Promise<GeneratedSummary> {
  const summary = segment.summary ?? {};
  const choice = await chooseSummaryModel(summary, environment);
  const range = { fromTurn: segment.from, toTurn: segment.to };
  let text: string | undefined;
  let modelId: string = DIGEST_RECIPE;
  if (choice.kind === "model") {
    const client = await createSummaryClient(choice, environment);
    if (client !== undefined) {
      text = await summarizeRange(client, rawTurns, segment, summary, environment);
      modelId = client.modelId;
    }
  } else if (choice.notice !== undefined) {
    environment.stderr?.write(`${choice.notice}\n`);
  }
  text ??= digestTurns(rawTurns, range);
  const losses = checkSummary(rawTurns, range, text);
  const path = writeSummaryCopy(environment, segment, text);
  return {
    policy: { summary: text, source: "derived", recipe: modelId },
    modelId,
    losses,
    ...(path === undefined ? {} : { path }),
  };
}

/**
 * The client of a chosen model. A model picked by default whose key is missing falls back to the
 * digest (undefined); a model the user or a rule named must work, so its error stands.
 */
async function createSummaryClient(
  choice: Extract<SummaryModelChoice, { kind: "model" }>,
  environment: SummaryEnvironment,
): Promise<LlmClient | undefined> {
  const { createLlmClient } = await import("../../llm/registry.js");
  try {
    return createLlmClient(choice.id, {
      config: environment.config,
      env: environment.env,
      // jp retries a summary's transient failures up to 3 times.
      retry: {
        maxRetries: 3,
        onRetry: (notice) =>
          environment.stderr?.write(
            `cxc: warning: ${notice.error.kind}: ${notice.error.message} Retrying (${notice.attempt}/${notice.maxRetries})…\n`,
          ),
      },
    });
  } catch (error) {
    if (!choice.explicit && CxcError.isInstance(error) && error.code === "provider-auth") {
      environment.stderr?.write(
        `${error.message} Summarizing with ${DIGEST_RECIPE} instead (offline, deterministic).\n`,
      );
      return undefined;
    }
    throw error;
  }
}

async function summarizeRange(
  client: LlmClient,
  rawTurns: readonly Turn[],
  segment: CompactionSegment,
  summary: SummaryRule,
  environment: SummaryEnvironment,
): Promise<string> {
  const { summarizeWithModel } = await import("../../llm/summarize.js");
  const label = `Generating summary of turns ${segment.from + 1}..${segment.to + 1} with ${client.modelId}`;
  const progress = environment.stderr === undefined ? undefined : startProgress(environment.stderr, label);
  let received = 0;
  const observed: LlmClient = {
    modelId: client.modelId,
    stream: (request, options) =>
      observeStream(client.stream(request, options), (event) => {
        if (event.type === "text-delta") received += event.text.length;
        if (event.type === "usage" && event.usage.outputTokens > 0)
          progress?.setTokens(event.usage.outputTokens);
        // Until the provider reports usage, about four characters make a token.
        else if (event.type === "text-delta") progress?.setTokens(Math.ceil(received / 4));
      }),
  };
  const maxTokens = summary.model?.parameters?.max_tokens;
  const selected = rawTurns.filter((turn) => turn.index >= segment.from && turn.index <= segment.to);
  let result: Awaited<ReturnType<typeof summarizeWithModel>>;
  try {
    result = await summarizeWithModel(observed, {
      rawTurns: selected,
      model: client.modelId,
      ...(summary.instructions === undefined ? {} : { instructions: summary.instructions }),
      ...(summary.context === undefined ? {} : { context: summary.context }),
      ...(typeof maxTokens === "number" ? { maxOutputTokens: maxTokens } : {}),
    });
  } finally {
    progress?.stop();
  }
  if (!result.ok) {
    throw new CxcError("summary-failed", `${result.message}. Nothing was compacted.`, {
      hint: `run again with -m ${DIGEST_RECIPE} to summarize offline`,
    });
  }
  return result.text;
}

async function* observeStream(
  stream: AsyncIterable<LlmStreamEvent>,
  onEvent: (event: LlmStreamEvent) => void,
): AsyncIterable<LlmStreamEvent> {
  for await (const event of stream) {
    onEvent(event);
    yield event;
  }
}

/** jp's convenience copy: `<tmpdir>/<id>-summary-<from>-<to>.md`, 0-based; failures only warn. */
function writeSummaryCopy(
  environment: SummaryEnvironment,
  segment: CompactionSegment,
  text: string,
): string | undefined {
  const path = join(tmpdir(), `${environment.conversationId}-summary-${segment.from}-${segment.to}.md`);
  try {
    writeFileSync(path, text.endsWith("\n") ? text : `${text}\n`);
    return path;
  } catch (error) {
    environment.stderr?.write(`cxc: warning: could not write ${path}: ${errorMessage(error)}\n`);
    return undefined;
  }
}
