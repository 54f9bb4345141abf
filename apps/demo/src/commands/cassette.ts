import type { CostModel } from '@switchboard/adapter';
import {
  type Cassette,
  type CassetteEntry,
  type CassetteExamination,
  CassetteFormatError,
  type CassetteSummary,
  diffCassettes,
  environmentSecrets,
  examineCassette,
  readCassette,
} from '@switchboard/cassette';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { configPriceBook } from '../config-price-book.js';
import { formatCount, formatUsd, renderTable } from '../format.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { safeJson, safeText } from '../terminal-text.js';

/** Options of `switchboard cassette show`. */
export interface CassetteShowOptions {
  json?: boolean;
  /** Also cost each call at today's prices. */
  reprice?: boolean;
}

/** Reads a cassette, or fails as bad input (exit 2) naming the file, line and field. */
function load(file: string): Cassette {
  try {
    return readCassette(file);
  } catch (error) {
    if (error instanceof CassetteFormatError)
      throw new CliError(safeText(error.message), BAD_INPUT_EXIT_CODE);
    throw error;
  }
}

/** The usage of a call's reply: the body's, or a stream's last chunk that carried one. */
function usageOf(entry: CassetteEntry): Record<string, unknown> | undefined {
  const reply = entry.reply as { body?: { usage?: Record<string, unknown> }; events?: { data?: string }[] };
  let usage = reply.body?.usage;
  for (const event of reply.events ?? []) {
    if (event.data === undefined || !event.data.includes('"usage"')) continue;
    try {
      usage = (JSON.parse(event.data) as { usage?: Record<string, unknown> }).usage ?? usage;
    } catch {
      // an event that is not JSON has no usage
    }
  }
  return typeof usage === 'object' && usage !== null ? usage : undefined;
}

function tokens(usage: Record<string, unknown> | undefined): { prompt: number; completion: number } {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return { prompt: count(usage?.prompt_tokens), completion: count(usage?.completion_tokens) };
}

function outcome(entry: CassetteEntry): string {
  const reply = entry.reply as {
    error?: { kind: string; status: number | null };
    end?: { kind: string } | null;
  };
  const failed = entry.attempts.filter((attempt) => attempt.error !== null).length;
  const retries = failed > 0 && reply.error === undefined ? ` after ${failed} failed` : '';
  if (reply.error) return `${reply.error.kind}${reply.error.status === null ? '' : ` ${reply.error.status}`}`;
  if (reply.end) return `cut: ${reply.end.kind}`;
  return `ok${retries}`;
}

function recordedCost(entry: CassetteEntry): number | null {
  const cost = entry.pricing?.costUsd;
  return typeof cost === 'number' ? cost : null;
}

/** `switchboard cassette show FILE`: one row per call (model, outcome, tokens, recorded cost), and the total. */
export function cassetteShowCommand(
  io: Io,
  file: string,
  options: CassetteShowOptions,
  loaded: CliConfig | null,
): void {
  const cassette = load(file);
  const book = options.reprice && loaded !== null ? configPriceBook(loaded) : null;
  const now = new Date();
  const rows = cassette.entries.map((entry) => {
    const usage = usageOf(entry);
    const { prompt, completion } = tokens(usage);
    const pricing =
      book === null || usage === undefined
        ? null
        : book.priceCall({ model: String(entry.request.model), usage, at: now });
    if (pricing !== null) loaded?.replacedPrices.used(io, pricing.pricedAs);
    const today = pricing?.costUsd ?? null;
    return {
      call: entry.call,
      model: String(entry.request.model),
      streamed: entry.streamed,
      outcome: outcome(entry),
      attempts: entry.attempts.length,
      promptTokens: prompt,
      completionTokens: completion,
      costUsd: recordedCost(entry),
      ...(book === null ? {} : { todayUsd: today }),
    };
  });
  const sum = (pick: (row: (typeof rows)[number]) => number | null | undefined) =>
    rows.reduce((total, row) => total + (pick(row) ?? 0), 0);
  const total = {
    calls: rows.length,
    promptTokens: sum((row) => row.promptTokens),
    completionTokens: sum((row) => row.completionTokens),
    costUsd: sum((row) => row.costUsd),
    ...(book === null ? {} : { todayUsd: sum((row) => row.todayUsd) }),
  };
  if (options.json) {
    io.stdout(safeJson({ file, endpoint: cassette.header.endpoint, calls: rows, total }));
    return;
  }
  const head = [
    'call',
    'model',
    'kind',
    'outcome',
    'attempts',
    'prompt',
    'output',
    'USD',
    ...(book ? ['USD today'] : []),
  ];
  const body = rows.map((row) => [
    String(row.call),
    safeText(row.model),
    row.streamed ? 'stream' : 'plain',
    safeText(row.outcome),
    String(row.attempts),
    formatCount(row.promptTokens),
    formatCount(row.completionTokens),
    formatUsd(row.costUsd),
    ...(book ? [formatUsd(row.todayUsd ?? null)] : []),
  ]);
  body.push([
    'total',
    '',
    '',
    '',
    '',
    formatCount(total.promptTokens),
    formatCount(total.completionTokens),
    formatUsd(total.costUsd),
    ...(book ? [formatUsd(total.todayUsd ?? 0)] : []),
  ]);
  io.stdout(`${renderTable(head, body, { color: io.color, rightAligned: [0, 4, 5, 6, 7, 8] })}\n`);
}

/**
 * `switchboard cassette diff A B`: which calls were added or removed and whose
 * request or reply changed. Exits 0 when nothing changed, 1 when something did.
 */
export function cassetteDiffCommand(
  io: Io,
  first: string,
  second: string,
  options: { json?: boolean },
): void {
  const after = load(second);
  const changes = diffCassettes(load(first), after);
  const differ = () => new CliError(`${changes.length} change(s) between the cassettes`, 1);
  if (options.json) {
    io.stdout(safeJson({ changes }));
    if (changes.length > 0) throw differ();
    return;
  }
  if (changes.length === 0) {
    io.stdout(`no changes: the ${formatCount(after.entries.length)} calls match\n`);
    return;
  }
  for (const change of changes) {
    const where =
      change.before === null
        ? `call ${change.after} (B)`
        : change.after === null
          ? `call ${change.before} (A)`
          : `call ${change.before} (A) / ${change.after} (B)`;
    const what = { added: 'added', removed: 'removed', request: 'request changed', reply: 'reply changed' }[
      change.change
    ];
    io.stdout(`${where}, ${safeText(change.model)}: ${what}\n`);
    for (const line of change.differences) io.stdout(`  ${safeText(line)}\n`);
  }
  throw differ();
}

/** The configuration's price book as a cost model, saying once that an entry replaces a shipped price when it prices a call. */
function pricesInForce(io: Io, loaded: CliConfig): CostModel {
  const book = configPriceBook(loaded);
  return {
    cost: () => null,
    priceCall(call) {
      const pricing = book.priceCall(call);
      loaded.replacedPrices.used(io, pricing.pricedAs);
      return pricing;
    },
  };
}

/** `36 calls in run 3f2a9c1b7e4d from 6 processes (6 each)`: what a cassette holds, and who recorded it. */
function describeSummary(summary: CassetteSummary): string {
  const counts = summary.processes.map((process) => process.calls);
  const each =
    counts.length > 0 && counts.every((count) => count === counts[0])
      ? `${formatCount(counts[0] ?? 0)} each`
      : counts.map((count) => formatCount(count)).join(', ');
  const run = summary.run === null ? 'no run named (an older cassette)' : `run ${safeText(summary.run)}`;
  const processes = summary.processes.length === 1 ? '1 process' : `${summary.processes.length} processes`;
  return `${formatCount(summary.calls)} calls in ${run} from ${processes}${summary.processes.length > 1 ? ` (${each})` : ''}`;
}

/**
 * `switchboard cassette check FILE...`, for a pre-commit hook: every line readable,
 * one record run (no line of another, no second header), no line cut, each
 * process's calls whole, match hashes current, no credential shape and no value
 * of a secret variable of the environment (`*API_KEY`, `*_KEY`, `*_TOKEN`,
 * `*_SECRET`, `*_PASSWORD`) in any form a reader could decode, and every recorded
 * cost what the call's usage costs at the prices in force (the installed table and
 * the configuration's `[prices."id"]`): replay bills what a line records. Says how many
 * calls each file holds, per process, and in which run. Exits 0 when clean, 1
 * when a problem was found, 2 when a file is not a cassette.
 */
export function cassetteCheckCommand(
  io: Io,
  files: readonly string[],
  loaded: CliConfig | null = null,
): void {
  const keys = environmentSecrets(io.env);
  const costModel = loaded === null ? null : pricesInForce(io, loaded);
  let status = 0;
  for (const file of files) {
    let examination: CassetteExamination;
    try {
      examination = examineCassette(file, { keys, costModel });
    } catch (error) {
      if (!(error instanceof CassetteFormatError)) throw error;
      io.stderr(`switchboard: ${safeText(error.message)}\n`);
      status = BAD_INPUT_EXIT_CODE;
      continue;
    }
    const { problems, summary } = examination;
    for (const problem of problems) {
      io.stderr(
        `switchboard: ${safeText(file)}${problem.line === null ? '' : `:${problem.line}`}: ${safeText(problem.message)}\n`,
      );
    }
    if (problems.length > 0 && status === 0) status = 1;
    io.stdout(`${safeText(file)}: ${problems.length === 0 ? 'ok, ' : ''}${describeSummary(summary)}\n`);
  }
  if (status !== 0) throw new CliError(`cassette check failed (exit ${status})`, status);
}
