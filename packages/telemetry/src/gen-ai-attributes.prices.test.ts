import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { costAmounts } from './cost-amounts.js';
import { resultAttributes, SWITCHBOARD } from './gen-ai-attributes.js';
import { reportedTokens } from './reported-tokens.js';
import type { TelemetryRecord } from './telemetry-record.js';

const context = { providerName: 'primary', route: 'r', server: null, conventions: 'v1.41.0' } as const;
const attributesOf = (record: TelemetryRecord) =>
  resultAttributes(record, reportedTokens(record.usage), costAmounts(record), context);

describe('the price attributes of a span', () => {
  it('carry the price entry’s checked date, and a locally priced call’s drift from the provider’s figure', () => {
    const record = { ...PRIMARY_JUDGE_CALL, priceCheckedAt: '2026-11-22', providerCostUsd: 0.0002 };
    const attributes = attributesOf(record);
    expect(attributes[SWITCHBOARD.priceCheckedAt]).toBe('2026-11-22');
    expect(attributes[SWITCHBOARD.costProviderAmount]).toBe(0.0002);
    // The ledger's 210,000 nano-dollars against the provider's 200,000.
    expect(attributes[SWITCHBOARD.costDrift]).toBe(0.05);
  });

  it('carry no drift for a call priced from the provider’s own figure, nor without one', () => {
    expect(attributesOf(GATEWAY_DETECTOR_CALL)).not.toHaveProperty(SWITCHBOARD.costDrift);
    const plain = attributesOf(PRIMARY_JUDGE_CALL);
    expect(plain).not.toHaveProperty(SWITCHBOARD.costDrift);
    expect(plain).not.toHaveProperty(SWITCHBOARD.costProviderAmount);
    expect(plain).not.toHaveProperty(SWITCHBOARD.priceCheckedAt);
  });
});
