export { COST_METRIC, METRIC_VALUE_CAP, METRICS } from './call-instruments.js';
export type { CallJournalOptions } from './call-journal.js';
export { CallJournal } from './call-journal.js';
export type { CallMeterOptions, MeterSnapshot } from './call-meter.js';
export { CallMeter, NO_ROLE } from './call-meter.js';
export { endpointLabel } from './endpoint-label.js';
export { GEN_AI, priceBand, SWITCHBOARD } from './gen-ai-attributes.js';
export { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrumentation-scope.js';
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
export type { JournalIssue, ReadJournalOptions } from './read-journal.js';
export { parseJournalLine, readJournal, warnJournalIssue } from './read-journal.js';
export type { RenderReportOptions } from './render-report.js';
export { renderReport, useColor } from './render-report.js';
export type { ReportFigures, ReportOptions, SpendBucket } from './report-accumulator.js';
export { ReportAccumulator } from './report-accumulator.js';
export type { ReportJournalOptions } from './report-journal.js';
export { reportJournal } from './report-journal.js';
export type { TallyFigures } from './tally.js';
export type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';
export type { UsageTokens } from './usage-tokens.js';
export { usageTokens } from './usage-tokens.js';
