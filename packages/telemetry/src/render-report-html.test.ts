import { describe, expect, it } from 'vitest';
import {
  CUT_STREAM_CALL,
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  REJECTED_CALL,
  TIMED_OUT_CALL,
  UNPRICED_MODEL_CALL,
} from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import { renderReportHtml } from './render-report-html.js';
import { ReportAccumulator } from './report-accumulator.js';

const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

function figures(records: object[]) {
  const accumulator = new ReportAccumulator();
  for (const record of records)
    accumulator.add(journalLineOf(record as typeof PRIMARY_JUDGE_CALL, ENDPOINT, undefined));
  return accumulator.result();
}

describe('renderReportHtml', () => {
  it('is one self-contained page: no script, no link, nothing to fetch, a policy that forbids it', () => {
    const page = renderReportHtml(figures([PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL, REJECTED_CALL]), {
      title: 'run.jsonl',
    });
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|src=|href=/i);
    expect(page).toContain('data-figure="totals.cost">$0.001410000<');
    expect(page.match(/<svg /g)).toHaveLength(5);
  });

  it('counts refused calls apart from the calls of a model with no price', () => {
    const page = renderReportHtml(figures([PRIMARY_JUDGE_CALL, REJECTED_CALL, UNPRICED_MODEL_CALL]));
    expect(page).toContain('Unpriced calls (no price for the model)');
    expect(page).toContain('data-figure="totals.unpricedCalls">1<');
    expect(page).toContain('data-figure="totals.refusedCalls">1<');
    expect(renderReportHtml(figures([PRIMARY_JUDGE_CALL, REJECTED_CALL]))).toContain(
      'data-figure="totals.unpricedCalls">0<',
    );
  });

  it('shows the part of the cost that is estimated and the unsettled calls, in total, per model and among the costliest', () => {
    const page = renderReportHtml(
      figures([PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL, REJECTED_CALL, CUT_STREAM_CALL, TIMED_OUT_CALL]),
    );
    expect(page).toContain('data-figure="totals.estimatedCost">$0.000090000<');
    expect(page).toContain('data-figure="totals.unsettledCalls">1<');
    expect(page).toContain('Of the cost, estimated (a lower bound)');
    expect(page).toContain('Unsettled calls (not in the cost)');
    expect(page).toContain(
      '$0.000090000 of the cost, over 1 call, is estimated: a lower bound, as no final usage arrived (the provider may bill more). 1 call is unsettled: its cost is unknown and not in the total (a budget counted each at its worst case).',
    );
    expect(page).toContain(
      '<tr><td>primary-flash</td><td class="n">2</td><td class="n">3</td><td class="n">1</td><td class="n">$0.000300000</td><td class="n">$0.000090000 (1)</td><td class="n">0</td></tr>',
    );
    expect(page).toContain(
      '<tr><td>primary-v4-pro</td><td class="n">2</td><td class="n">2</td><td class="n">1</td><td class="n">$0.001200000</td><td class="n">$0.000000000 (0)</td><td class="n">1</td></tr>',
    );
    expect(page).toContain('<td class="n">≥$0.000090000</td>');
    expect(page).toContain('≥: an estimate, a lower bound of what the provider bills.');
    expect(renderReportHtml(figures([PRIMARY_JUDGE_CALL]))).not.toContain('data-figure="settlement.note"');
  });

  it("counts degradations in the Failed card in the right number, and lists no '(others)' it does not draw", () => {
    const page = renderReportHtml(figures([PRIMARY_JUDGE_CALL, REJECTED_CALL]));
    expect(page).toContain('data-figure="totals.failures">1 (1 degradation)<');
    expect(page).not.toContain('(others)');
    expect(renderReportHtml(figures([PRIMARY_JUDGE_CALL, TIMED_OUT_CALL]))).toContain(
      'data-figure="totals.failures">1<',
    );
  });

  it('escapes names from the journal as text, control characters too', () => {
    const hostile = { ...PRIMARY_JUDGE_CALL, role: '</title><script>alert(1)</script>\u001b[2J\n' };
    const page = renderReportHtml(figures([hostile]));
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\u001b[2J\\n');
  });

  it('stays small however many calls and names: aggregated, capped rows', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => ({
      ...PRIMARY_JUDGE_CALL,
      role: `role-${index}`,
      at: new Date(Date.UTC(2026, 0, 1) + index * 3_600_000).toISOString(),
    }));
    const page = renderReportHtml(figures(many));
    expect(page.length).toBeLessThan(200_000);
    expect(page).toContain('… and 986 more');
  });
});
