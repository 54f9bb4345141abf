export { COST_METRIC, METRIC_VALUE_CAP, METRICS } from './call-instruments.js';
export type { CallJournalOptions } from './call-journal.js';
export { CallJournal } from './call-journal.js';
export type { CallMeterOptions, MeterSnapshot } from './call-meter.js';
export { CallMeter } from './call-meter.js';
export type { CheckedJournalLine } from './check-journal-line.js';
export { checkJournalLine } from './check-journal-line.js';
export type { CostlyCall } from './costliest-calls.js';
export { endpointLabel } from './endpoint-label.js';
export { GEN_AI, priceBand, SWITCHBOARD } from './gen-ai-attributes.js';
export { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrumentation-scope.js';
export { JOURNAL_LIMITS } from './journal-limits.js';
export type { JournalLine } from './journal-line.js';
export { JOURNAL_VERSION } from './journal-line.js';
export type {
  OtelApi,
  OtelAttributes,
  OtelAttributeValue,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelMeterProvider,
  OtelRecorder,
  OtelScopeOptions,
  OtelSpan,
  OtelTime,
  OtelTracer,
} from './otel-api.js';
export type { OtelConventions } from './otel-conventions.js';
export { STABILITY_OPT_IN_ENV } from './otel-conventions.js';
export type { OtelObserverOptions } from './otel-observer.js';
export { createOtelObserver, otelObserver } from './otel-observer.js';
export type { JournalIssue, ReadJournalOptions, ScanJournalOptions } from './read-journal.js';
export {
  cappedIssueWarner,
  MAX_ISSUE_WARNINGS,
  parseJournalLine,
  readJournal,
  scanJournal,
  warnJournalIssue,
} from './read-journal.js';
export type { RenderReportOptions } from './render-report.js';
export { renderReport, useColor } from './render-report.js';
export type { RenderReportHtmlOptions } from './render-report-html.js';
export { renderReportHtml } from './render-report-html.js';
export type { ReportFigures, ReportOptions, SpendBucket } from './report-accumulator.js';
export { ReportAccumulator } from './report-accumulator.js';
export type { ReportJournalOptions } from './report-journal.js';
export { reportJournal } from './report-journal.js';
export { printable } from './report-text.js';
export type { JournalSource, ScannedLine } from './scan-lines.js';
export { scanLines } from './scan-lines.js';
export type { TallyFigures } from './tally.js';
export type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';
export type { UsageTokens } from './usage-tokens.js';
export { usageTokens } from './usage-tokens.js';
