export type { BudgetFigures } from './budget-check.js';
export { type BudgetMetrics, type BudgetMetricsOptions, budgetMetrics } from './budget-metrics.js';
export type { MeteredBudget, MeteredRefusal, MeteredScope } from './budget-snapshot.js';
export { COST_METRIC, METRIC_VALUE_CAP, METRICS } from './call-instruments.js';
export { CallJournal, type CallJournalOptions } from './call-journal.js';
export { CallMeter, type CallMeterOptions, type MeterSnapshot } from './call-meter.js';
export { type CheckedJournalLine, checkJournalLine } from './check-journal-line.js';
export type { CostlyCall } from './costliest-calls.js';
export { endpointLabel } from './endpoint-label.js';
export { GEN_AI, priceBand, SWITCHBOARD } from './gen-ai-attributes.js';
export type { HostFigures } from './host-tally.js';
export { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrumentation-scope.js';
export { JOURNAL_LIMITS } from './journal-limits.js';
export { JOURNAL_VERSION, type JournalLine } from './journal-line.js';
export type { NamedJournal } from './journal-merge.js';
export type { SequenceFigures } from './line-sequences.js';
export type * from './otel-api.js';
export { type OtelConventions, STABILITY_OPT_IN_ENV } from './otel-conventions.js';
export type * from './otel-gauge-api.js';
export { createOtelObserver, type OtelObserverOptions, otelObserver } from './otel-observer.js';
export { PostgresJournal, type PostgresJournalOptions } from './postgres-journal.js';
export { type PostgresJournalSourceOptions, postgresJournalSource } from './postgres-journal-source.js';
export type { PriceAgeFigures } from './price-age-tally.js';
export type { JournalIssue, ReadJournalOptions, ScanJournalOptions } from './read-journal.js';
export {
  cappedIssueWarner,
  MAX_ISSUE_WARNINGS,
  parseJournalLine,
  readJournal,
  scanJournal,
  warnJournalIssue,
} from './read-journal.js';
export type { Reconciliation, ReconciliationFigures } from './reconciliation.js';
export { type RenderReportOptions, renderReport, useColor } from './render-report.js';
export { type RenderReportHtmlOptions, renderReportHtml } from './render-report-html.js';
export type { JournalPlace, RepeatedLine, RepeatedLines } from './repeat-findings.js';
export type * from './report-accumulator.js';
export { ReportAccumulator } from './report-accumulator.js';
export { type ReportJournalOptions, reportJournal } from './report-journal.js';
export type * from './report-journals.js';
export { reportJournals } from './report-journals.js';
export { printable } from './report-text.js';
export { type JournalSource, type ScannedLine, scanLines } from './scan-lines.js';
export type { SettlementKind } from './settlement.js';
export type { TallyFigures } from './tally.js';
export type * from './telemetry-record.js';
export { type UsageTokens, usageTokens } from './usage-tokens.js';
export type * from './verify-findings.js';
export type * from './verify-journal.js';
export { JournalVerifier, verifyJournal } from './verify-journal.js';
export type * from './verify-journals.js';
export { verifyJournals } from './verify-journals.js';
