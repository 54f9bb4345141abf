import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, judgeCallCosting } from './__fixtures__/call-records.js';
import { PriceAgeTally } from './price-age-tally.js';
import { renderReport } from './render-report.js';
import { renderReportHtml } from './render-report-html.js';
import { ReportAccumulator } from './report-accumulator.js';

const AT = '2026-11-23T08:00:10.500Z';

function priced(checkedAt: string | undefined, costNanoUsd: number, model = 'primary-flash') {
  return judgeCallCosting(model, costNanoUsd, {
    at: AT,
    ...(checkedAt === undefined ? {} : { priceCheckedAt: checkedAt }),
  });
}

describe('the age of the prices a run was costed with', () => {
  it('counts the calls and cost priced from entries checked more than staleAfterDays before each call', () => {
    const tally = new PriceAgeTally();
    const at = Date.parse(AT);
    tally.add(priced('2026-08-25', 1_000), at); // 90 days before 2026-11-23: not stale
    tally.add(priced('2026-08-24', 2_000, 'old-model'), at); // 91 days: stale
    tally.add(priced(undefined, 4_000), at); // no date
    tally.add(GATEWAY_DETECTOR_CALL, at); // the provider's own figure: no price, no age
    expect(tally.figures()).toEqual({
      staleAfterDays: 90,
      pricedCalls: 3,
      staleCalls: 1,
      staleCostNanoUsd: 2_000,
      staleCost: '0.000002000',
      staleShare: 2 / 7,
      undatedCalls: 1,
      undatedCostNanoUsd: 4_000,
      undatedCost: '0.000004000',
      oldestCheckedAt: '2026-08-24',
      staleModels: ['old-model'],
    });
  });

  it('follows staleAfterDays, and is in the report, text and HTML', () => {
    const report = new ReportAccumulator({ staleAfterDays: 30 });
    report.add(JSON.stringify({ v: 1, ...priced('2026-10-01', 3_000) }));
    report.add(JSON.stringify({ v: 1, ...priced('2026-11-20', 1_000) }));
    const figures = report.result();
    expect(figures.priceAge).toMatchObject({
      staleAfterDays: 30,
      staleCalls: 1,
      staleCostNanoUsd: 3_000,
      staleShare: 0.75,
    });
    expect(renderReport(figures)).toContain(
      'stale: 1 call priced from an entry checked more than 30 days before the call, $0.000003000 (75.0% of the priced cost): primary-flash',
    );
    expect(renderReportHtml(figures)).toContain('data-figure="priceAge.staleCalls" data-value="1"');
    expect(new ReportAccumulator().result().priceAge.staleAfterDays).toBe(90);
    expect(() => new PriceAgeTally(-1)).toThrow(RangeError);
  });
});
