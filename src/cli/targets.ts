/**
 * The conversations a command acts on (jp's positional targets): ids or unique prefixes, the
 * keywords the store knows (`active`, `.`, `recent`), jp's picker targets, and (for commands that
 * take several) `-`, which reads ids from standard input, one per line, blank lines skipped (an
 * error when stdin is a terminal). No argument means the active conversation. Every target is
 * resolved before anything runs, so one bad target changes nothing; a conversation named twice is
 * acted on once.
 *
 * Picker targets (jp's `target.rs`): `?` every live conversation, `?p`/`?pinned` the pinned ones,
 * `?s`/`?session` the ones this session made active, `?a`/`?archived` the archived ones. At a
 * terminal they open a searchable list (src/cli/terminal/picker.ts); a list narrowed to one
 * conversation takes it without asking; in a pipe they are an error, never a guess.
 *
 * A conversation reached without its id being typed (no argument, a keyword, a picker) is noted
 * (`noteImplicitTarget`), so an error of the command names the conversation it acted on.
 */
import { CxcError, usageError } from "../errors.js";
import type { ConversationMeta, LoadedConversation } from "../store/index.js";
import type { Command } from "commander";
import { CliContext, noteImplicitTarget, type OutputFormat } from "./context.js";
import { pickConversation } from "./terminal/picker.js";
import { conversationSource, sourceName } from "../core/interop/agents.js";
import { displayTitle } from "./render/conversation-summary.js";

/** What a command's `[ID]` argument takes (its help): which conversation the command acts on. */
export const ID_ARGUMENT =
  "conversation id or unique prefix, `active`, `recent`, or `?` to pick from a list (default: the active one)";

/**
 * Defines `entry` as a command on one conversation with no options of its own: the `[ID]` argument
 * (default: the active one) and `run`, given the command's context and the ID as typed.
 */
export function defineOnConversation(
  entry: Command,
  description: string,
  run: (context: CliContext, idArgument: string | undefined) => Promise<void>,
): void {
  entry
    .description(description)
    .argument("[ID]", ID_ARGUMENT)
    .action((idArgument: string | undefined, _options: unknown, command: Command) =>
      run(CliContext.from(command), idArgument),
    );
}

/**
 * The conversation `idArgument` names (else the active one), loaded, with what its load warned
 * about said on stderr: what `show`, `stats` and `print` start with.
 */
export async function loadConversation(
  context: CliContext,
  idArgument: string | undefined,
): Promise<{ readonly id: string; readonly conversation: LoadedConversation }> {
  const id = await resolveConversation(context, idArgument);
  const conversation = context.store.load(id);
  for (const warning of conversation.warnings) context.warn(warning);
  return { id, conversation };
}

/**
 * `defineOnConversation` for a command that reads the conversation (`show`, `stats`): `run` gets
 * the `--format` (checked first, so a bad one is reported without a conversation) and the
 * conversation as `loadConversation` gives it.
 */
export function defineOnLoadedConversation(
  entry: Command,
  description: string,
  run: (
    context: CliContext,
    format: OutputFormat,
    loaded: { readonly id: string; readonly conversation: LoadedConversation },
  ) => Promise<void>,
): void {
  defineOnConversation(entry, description, async (context, idArgument) => {
    const format = context.format();
    await run(context, format, await loadConversation(context, idArgument));
  });
}

/** Which conversations a picker target offers. */
export interface PickerFilter {
  readonly pinned?: boolean;
  readonly session?: boolean;
  readonly archived?: boolean;
}

const PICKER_TARGETS: Readonly<Record<string, PickerFilter>> = {
  "?": {},
  "?p": { pinned: true },
  "?pinned": { pinned: true },
  "?s": { session: true },
  "?session": { session: true },
  "?a": { archived: true },
  "?archived": { archived: true },
};

/** The filter a picker target stands for; undefined for any other word. */
export function parsePickerTarget(word: string | undefined): PickerFilter | undefined {
  return word === undefined ? undefined : PICKER_TARGETS[word.trim().toLowerCase()];
}

/** Candidates narrowed before the picker opens (`use --grep`, `--from`, `--until`). */
export interface CandidateFilter {
  /** Keeps the conversations whose title or messages contain it (smart case, as jp). */
  readonly grep?: string;
  /** Keeps the conversations created at or after this instant (RFC 3339). */
  readonly from?: string;
  /** Keeps the conversations created before this instant. */
  readonly until?: string;
}

/** How `resolveConversation` treats a missing target. */
export interface ResolveOptions {
  /** `use`: no target opens the picker at a terminal instead of meaning the active one. */
  readonly pickWhenAbsent?: boolean;
  readonly narrow?: CandidateFilter;
  /** The picker's question. Default: `Pick a conversation`. */
  readonly message?: string;
}

/**
 * The one conversation `target` names: an id or unique prefix, a keyword, a picker target, or
 * (absent) the active conversation. See the module comment.
 */
export async function resolveConversation(
  context: CliContext,
  target: string | undefined,
  options: ResolveOptions = {},
): Promise<string> {
  const picker =
    parsePickerTarget(target) ??
    (target === undefined && (options.pickWhenAbsent || options.narrow !== undefined) ? {} : undefined);
  if (picker !== undefined) {
    const id = await pickOne(context, picker, options, target ?? "");
    noteImplicitTarget(id);
    return id;
  }
  const id = context.store.resolveTarget(target);
  if (target === undefined || isKeyword(target)) noteImplicitTarget(id);
  return id;
}

function isKeyword(target: string): boolean {
  return ["active", ".", "recent"].includes(target.trim().toLowerCase());
}

/** Whether a picker can open: both the keyboard and the screen are a terminal. */
function canPick(context: CliContext): boolean {
  return context.stdinIsTerminal && Boolean(process.stderr.isTTY);
}

async function pickOne(
  context: CliContext,
  filter: PickerFilter,
  options: ResolveOptions,
  word: string,
): Promise<string> {
  const cannotPick = (): CxcError =>
    usageError(
      word === "" ? "no conversation given" : `\`${word}\` opens a list to pick from, which needs a terminal`,
      "name the conversation by id or unique prefix (`cxc conversation ls` lists them), or `active`, `recent`",
    );
  // Only a list narrowed to one is taken without a terminal (jp's `use --grep`).
  if (options.narrow === undefined && !canPick(context)) throw cannotPick();
  const candidates = await narrowCandidates(context, listCandidates(context, filter), options.narrow);
  if (candidates.length === 0) throw new CxcError("conversation-not-found", nothingToPick(filter, options));
  if (candidates.length === 1 && options.narrow !== undefined) return candidates[0]!.id;
  if (!canPick(context)) throw cannotPick();
  return pickConversation(
    candidates.map((meta) => ({
      id: meta.id,
      title: displayTitle(meta),
      source: sourceName(conversationSource(meta)),
      turns: meta.turn_count ?? 0,
      updatedAt: meta.updated_at,
    })),
    {
      message: options.message ?? (filter.archived ? "Pick an archived conversation" : "Pick a conversation"),
      now: Date.now(),
    },
  );
}

function nothingToPick(filter: PickerFilter, options: ResolveOptions): string {
  if (options.narrow !== undefined) return "no conversations match the filter";
  if (filter.archived) return "there are no archived conversations";
  if (filter.pinned) return "there are no pinned conversations";
  if (filter.session) return "this session has made no conversation active yet";
  return "there are no conversations yet";
}

/**
 * The conversations a picker offers, in jp's order: the active one first, then pinned ones
 * (latest pinned first), then the rest by last update.
 */
function listCandidates(context: CliContext, filter: PickerFilter): ConversationMeta[] {
  const archived = filter.archived ?? false;
  const listed = context.store.list({ archived });
  for (const warning of listed.warnings) context.warn(warning);
  const session = filter.session ? new Set(context.store.sessionHistory()) : undefined;
  const active = context.store.active();
  const time = (value: string | null | undefined): number => (value ? Date.parse(value) || 0 : 0);
  return listed.conversations
    .map(({ meta }) => meta)
    .filter((meta) => !filter.pinned || typeof meta.pinned_at === "string")
    .filter((meta) => session === undefined || session.has(meta.id))
    .sort(
      (left, right) =>
        Number(right.id === active) - Number(left.id === active) ||
        time(right.pinned_at) - time(left.pinned_at) ||
        time(right.updated_at) - time(left.updated_at),
    );
}

async function narrowCandidates(
  context: CliContext,
  candidates: readonly ConversationMeta[],
  narrow: CandidateFilter | undefined,
): Promise<ConversationMeta[]> {
  if (narrow === undefined) return [...candidates];
  const inRange = candidates.filter((meta) => {
    const created = Date.parse(meta.created_at);
    if (narrow.from !== undefined && created < Date.parse(narrow.from)) return false;
    if (narrow.until !== undefined && created >= Date.parse(narrow.until)) return false;
    return true;
  });
  if (narrow.grep === undefined) return inRange;
  const pattern = narrow.grep;
  // Smart case, as jp's search: any case unless the pattern has an upper-case letter.
  const ignoreCase = pattern === pattern.toLowerCase();
  const contains = (text: string): boolean =>
    ignoreCase ? text.toLowerCase().includes(pattern.toLowerCase()) : text.includes(pattern);
  return inRange.filter((meta) => {
    if (meta.title && contains(meta.title)) return true;
    try {
      return context.store.load(meta.id).events.some((event) => {
        if (event.type === "chat_request") return contains(event.content);
        return event.type === "chat_response" && event.message !== undefined && contains(event.message);
      });
    } catch {
      // A conversation that cannot be read does not match (`grep` skips it with a warning).
      return false;
    }
  });
}

/** The conversations of a command that takes several (`compact`); see the module comment. */
export async function resolveTargets(context: CliContext, targets: readonly string[]): Promise<string[]> {
  if (targets.length === 0) return [await resolveConversation(context, undefined)];
  const words: string[] = [];
  for (const target of targets) {
    if (target !== "-") {
      words.push(target);
      continue;
    }
    if (context.stdinIsTerminal) {
      throw usageError(
        "`-` reads conversation ids from standard input, which is a terminal",
        "pipe them in, one per line",
      );
    }
    words.push(
      ...(await context.readStdin())
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    );
  }
  if (words.length === 0) {
    throw usageError("`-` read no conversation ids from standard input", "pipe the ids in, one per line");
  }
  const ids: string[] = [];
  for (const word of words) ids.push(await resolveConversation(context, word));
  return [...new Set(ids)];
}
