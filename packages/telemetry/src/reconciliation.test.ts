import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, judgeCallCosting } from './__fixtures__/call-records.js';
import { CallMeter } from './call-meter.js';
import { ReconciliationTally } from './reconciliation.js';
import { renderReport } from './render-report.js';
import { renderReportHtml } from './render-report-html.js';
import { ReportAccumulator } from './report-accumulator.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** A call priced from the table whose reply also carried the provider's cost. */
function call(
  model: string,
  localNano: number,
  providerUsd: number | undefined,
  extra: Partial<TelemetryRecord> = {},
) {
  return judgeCallCosting(model, localNano, {
    ...(providerUsd === undefined ? {} : { providerCostUsd: providerUsd }),
    ...extra,
  });
}

describe('reconciliation', () => {
  it('sums the local and the provider’s figures exactly, in total and by model, with their drift', () => {
    const tally = new ReconciliationTally();
    tally.add(call('a', 1_000_000, 0.001));
    tally.add(call('a', 1_000_001, 0.001));
    tally.add(call('b', 2_210_000, 0.001));
    const figures = tally.figures();
    expect(figures).toMatchObject({
      calls: 3,
      localNanoUsd: 4_210_001,
      providerNanoUsd: 3_000_000,
      local: '0.004210001',
      provider: '0.003000000',
      driftThreshold: 0.01,
      drifting: ['b'],
    });
    expect(figures.drift).toBeCloseTo(1_210_001 / 3_000_000, 15);
    expect(figures.byModel.a).toEqual({
      calls: 2,
      localNanoUsd: 2_000_001,
      providerNanoUsd: 2_000_000,
      local: '0.002000001',
      provider: '0.002000000',
      drift: 1 / 2_000_000,
    });
    expect(figures.byModel.b?.drift).toBeCloseTo(1.21, 15);
  });

  it('leaves out calls without both figures, priced from the provider, estimated, or not settled exactly', () => {
    const tally = new ReconciliationTally();
    tally.add(call('a', 1_000, undefined));
    tally.add(GATEWAY_DETECTOR_CALL); // priced from the provider's own figure: nothing to compare
    tally.add(call('a', 1_000, 0.000001, { priceSource: 'estimate', settlement: 'estimate' }));
    tally.add(call('a', 1_000, 0.000001, { settlement: 'unsettled' }));
    tally.add(call('a', 1_000, Number.NaN));
    expect(tally.figures()).toMatchObject({ calls: 0, drift: null, drifting: [], byModel: {} });
  });

  it('names a model drifting either way past the threshold, and one the provider billed 0 for, the largest first', () => {
    const tally = new ReconciliationTally(0.05);
    tally.add(call('under', 940_000, 0.001)); // -6%
    tally.add(call('within', 1_049_000, 0.001)); // +4.9%
    tally.add(call('free', 5, 0));
    tally.add(call('zero', 0, 0));
    const figures = tally.figures();
    expect(figures.drifting).toEqual(['free', 'under']);
    expect(figures.byModel.free?.drift).toBeNull();
    expect(figures.byModel.zero?.drift).toBe(0);
    expect(() => new ReconciliationTally(-1)).toThrow(RangeError);
  });

  it('is in the meter’s snapshot and the report’s figures, text and HTML', () => {
    const meter = new CallMeter();
    const report = new ReportAccumulator({ driftThreshold: 0.02 });
    const records = [call('a', 1_000_000, 0.001), call('b', 1_100_000, 0.001)];
    for (const record of records) {
      meter.afterCall(record);
      report.add(JSON.stringify({ v: 1, ...record }));
    }
    expect(meter.snapshot().reconciliation).toMatchObject({
      calls: 2,
      localNanoUsd: 2_100_000,
      drifting: ['b'],
    });
    const figures = report.result();
    expect(figures.reconciliation).toMatchObject({
      calls: 2,
      localNanoUsd: 2_100_000,
      providerNanoUsd: 2_000_000,
      driftThreshold: 0.02,
      drifting: ['b'],
    });
    const text = renderReport(figures);
    expect(text).toContain(
      "against the provider's own figures, 2 calls: local $0.002100000, provider $0.002000000, drift +5.0%",
    );
    expect(text).toContain('drifting more than 2.0%: b +10.0% (1 call)');
    const html = renderReportHtml(figures);
    expect(html).toContain('data-figure="reconciliation.local">$0.002100000<');
    expect(html).toContain(
      'data-figure="reconciliation.drifting" data-value="1">Drifting more than 2.0% (⚠): b.',
    );
  });
});
