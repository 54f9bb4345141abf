import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { CallRecord } from '@switchboard/adapter';
import type { Budget } from '@switchboard/budget';
import { startEmulator } from '@switchboard/emulator';
import {
  isAdapterResolution,
  resolveChatEndpoint,
  resolveModels,
  type SwitchboardConfig,
} from '@switchboard/endpoint';
import { renderReport } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { openDemoJournal } from '../demo/demo-journal.js';
import {
  type RoleOutcome,
  runClassifier,
  runDetector,
  runJudge,
  runProposer,
  runRejectedModel,
} from '../demo/demo-roles.js';
import { BUDGETED_ROLE, runBudgeted } from '../demo/run-budgeted.js';
import { colors, formatUsd } from '../format.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { readJournalReport } from '../report/read-journal-report.js';
import { reportWidth } from '../report/report-width.js';
import { safeJson, safeText } from '../terminal-text.js';
import { renderUsageTable } from '../usage-table.js';
import { sumTotals, usageTotals } from '../usage-totals.js';

/** A model id the platform rejects (a product-style id). */
const REJECTED_MODEL = 'primary-v4.1-flash';
const PROPOSER_MAX_TOKENS = 12;
/** The classifier calls the larger model, so the cost table shows each call priced by its own model. */
const CLASSIFIER_MODEL = 'primary-v4-pro';
/** The triage role's budget: room for a few capped calls' worst cases, not for one more. */
const TRIAGE_LIMIT_USD = 0.0005;
/** The run's budget, over every role; the output cap it assumes for calls without `max_tokens`. */
const RUN_LIMIT_USD = 0.05;
const RUN_MAX_OUTPUT_TOKENS = 4096;
/** Why the demo's record says `"thinking": true` while the default is off; printed with the record. */
const THINKING_NOTE =
  'thinking is off by default; the demo turns it on (models.thinking = true) so the detector has reasoning to replay across its tool turn';

/** A role's models (as its calls were made) and the sum of its calls' costs, each at its own model's price. */
function roleCosts(records: readonly CallRecord[]): { model: string; usd: number } {
  const models = [...new Set(records.map((record) => record.model))];
  const usd = records.reduce((sum, record) => sum + (record.costUsd ?? 0), 0);
  return { model: models.join(', '), usd };
}

/** Options of `switchboard demo`. */
export interface DemoCommandOptions {
  json?: boolean;
  /** The journal file to append the session's calls to; default: a new file under the OS temp directory. */
  journal?: string;
}

/**
 * `switchboard demo`: starts the emulator on loopback, resolves the endpoint
 * through the primary route (an `env` of its own: the user's environment is
 * neither read for keys nor changed) with a budget as the adapter's observer,
 * runs a short multi-role session (the last role runs out of its budget),
 * prints the endpoint record and a cost table per role, journals every call
 * and ends with the journal's report.
 */
export async function demoCommand(io: Io, options: DemoCommandOptions = {}): Promise<void> {
  if (options.journal === '-' && options.json) {
    throw new CliError(
      '--journal -: stdout carries the --json document; journal to a file instead',
      BAD_INPUT_EXIT_CODE,
    );
  }
  const paint = colors(io.color);
  const errorPaint = colors(io.errorColor ?? io.color);
  // A throwaway key for the emulator: the demo never needs, reads or prints a real one.
  const demoKey = `demo-${randomBytes(12).toString('hex')}`;
  const emulator = await startEmulator({ key: demoKey, emptyJson: [1] });
  let budget: Budget | undefined;
  try {
    io.stderr(errorPaint.dim(`emulator listening on ${emulator.url}\n`));
    // Thinking stays on here so the detector has reasoning to replay across its tool turn.
    const config: SwitchboardConfig = { models: { thinking: true } };
    // Loaded here, not at start: only the demo pays for the budget package (and its Redis client).
    const { createBudget } = await import('@switchboard/budget');
    budget = createBudget({
      scope: { name: 'demo', limitUsd: RUN_LIMIT_USD },
      roles: { [BUDGETED_ROLE]: { limitUsd: TRIAGE_LIMIT_USD } },
      maxOutputTokens: RUN_MAX_OUTPUT_TOKENS,
      onWarning: (message) => io.stderr(errorPaint.dim(`budget: ${message}\n`)),
    });
    const resolved = resolveChatEndpoint(config, {
      env: { PRIMARY_API_KEY: demoKey, PRIMARY_BASE_URL: emulator.url },
      observers: [budget],
    });
    if (!isAdapterResolution(resolved)) {
      throw new CliError('the demo endpoint did not resolve through the primary route');
    }
    const { client: adapter, endpoint } = resolved;
    const [detectorModel, judgeModel] = resolveModels(config);
    // Each call's record names the budget scopes it was charged to: the journal writes them for report --verify.
    const session = openDemoJournal(io, endpoint, options.journal);
    adapter.observe(session.observer);

    const steps: Array<[string, () => Promise<RoleOutcome>]> = [
      ['detector', () => runDetector(adapter, detectorModel)],
      ['classifier', () => runClassifier(adapter, CLASSIFIER_MODEL)],
      ['judge', () => runJudge(adapter, judgeModel, () => emulator.requests.length)],
      ['proposer', () => runProposer(adapter, detectorModel, PROPOSER_MAX_TOKENS)],
      ['rejected-model', () => runRejectedModel(adapter, REJECTED_MODEL)],
      [
        BUDGETED_ROLE,
        () => runBudgeted(adapter, detectorModel, TRIAGE_LIMIT_USD, () => emulator.requests.length),
      ],
    ];
    // Each role's cost is the sum of its calls' records, each priced by the model it was made with.
    const records: CallRecord[] = [];
    adapter.observe({ afterCall: (record) => void records.push(record) });
    const outcomes: RoleOutcome[] = [];
    const roleRecords: CallRecord[][] = [];
    for (const [index, [role, run]] of steps.entries()) {
      io.stderr(errorPaint.dim(`[${index + 1}/${steps.length}] ${role}...\n`));
      const first = records.length;
      session.role = role;
      const outcome = await run();
      outcomes.push(outcome);
      roleRecords.push(records.slice(first));
      io.stderr(`  ${errorPaint.green('✓')} ${role}: ${safeText(outcome.summary)}\n`);
    }

    // Calls and attempts as the journal counts them: one call per raw call record (a refused one
    // included), attempts only for requests that reached the wire.
    const rows = outcomes.map((outcome, index) => {
      const calls = roleRecords[index] ?? [];
      const { model, usd } = roleCosts(calls);
      const label = outcome.budget?.refused
        ? `${outcome.role} (${outcome.budget.refused} refused)`
        : outcome.role;
      const attempts = calls.reduce((sum, record) => sum + record.attempts, 0);
      return {
        label,
        model,
        attempts,
        totals: { ...usageTotals(outcome.usage, () => 0), calls: calls.length, usd },
      };
    });
    const total = sumTotals(rows.map((row) => row.totals));
    const totalAttempts = rows.reduce((sum, row) => sum + row.attempts, 0);
    const degraded = outcomes.filter((outcome) => outcome.degraded);
    const dropped = await session.journal.close();
    const warn = (message: string) => io.stderr(`switchboard: warning: ${safeText(message)}\n`);
    // Only a regular file is read back: stdout (-) and devices such as /dev/full are not.
    const report = isRegularFile(session.path)
      ? await readJournalReport(session.path, { since: session.since, warn })
      : null;

    if (options.json) {
      io.stdout(
        safeJson({
          endpoint,
          note: THINKING_NOTE,
          roles: outcomes.map((outcome, index) => ({
            role: outcome.role,
            model: rows[index]?.model,
            summary: outcome.summary,
            degraded: outcome.degraded === true,
            ...rows[index]?.totals,
            attempts: rows[index]?.attempts,
            ...(outcome.budget ? { budget: outcome.budget } : {}),
          })),
          total: { ...total, attempts: totalAttempts },
          // The adapter's own sum over every raw call, its bounded copies' included: the report's total.
          totalCostUsd: adapter.totalCostUsd(),
          journal: session.path,
          // Lines the journal could not write (a full disk, say): the report is short of them.
          journalDropped: dropped,
          report,
        }),
      );
      return;
    }

    io.stdout(`\n${paint.bold('Endpoint record')} (as a run journals it; it never holds the key)\n`);
    io.stdout(safeJson(endpoint));
    io.stdout(`note: ${THINKING_NOTE}\n`);
    io.stdout(`\n${paint.bold('Cost per role')} (each call at its own model's prices, USD)\n`);
    io.stdout(
      `${renderUsageTable('role', [...rows, { label: 'total', model: '', attempts: totalAttempts, totals: total }], { color: io.color })}\n`,
    );
    io.stdout(
      `total cost: ${formatUsd(total.usd)} over ${plural(total.calls, 'call')} (${plural(totalAttempts, 'attempt')} reached the endpoint)\n`,
    );
    for (const outcome of degraded) {
      io.stdout(`degradation recorded (not a verdict): ${safeText(outcome.summary)}\n`);
    }
    for (const outcome of outcomes) {
      if (!outcome.budget?.refusal) continue;
      io.stdout(
        `refused before it was sent (${outcome.role}, budget ${formatUsd(outcome.budget.limitUsd)}; the emulator received ${plural(outcome.budget.requestsForRefused, 'request')} for it): ${safeText(outcome.budget.refusal)}\n`,
      );
    }
    if (report === null) {
      io.stdout(`\n${paint.bold('Journal')}: ${safeText(session.path)} (not a file: no report read back)\n`);
      return;
    }
    io.stdout(`\n${paint.bold('Journal')}: ${safeText(session.path)} (switchboard report reads it again)\n`);
    io.stdout(renderReport(report, { color: io.color, width: reportWidth(io) }));
  } finally {
    budget?.close();
    await emulator.close();
  }
}

function isRegularFile(path: string): boolean {
  if (path === '-') return false;
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
