import { describe, expect, it } from 'vitest';
import { providerCostOf } from './provider-cost-of.js';

// The gateway's reply shapes: `cost` (what it charged, upstream included), `cost_details.upstream_inference_cost`
// (what the upstream provider charged), `is_byok` (the caller's own key was billed upstream).
describe('providerCostOf with an upstream cost beside the cost', () => {
  it('never adds the upstream cost to the cost: the cost already holds it', () => {
    expect(providerCostOf({ cost: 0.0021, cost_details: { upstream_inference_cost: 0.002 } })).toBe(0.0021);
    expect(
      providerCostOf({ cost: 0.0021, is_byok: false, cost_details: { upstream_inference_cost: 0.002 } }),
    ).toBe(0.0021);
  });

  it('a bring-your-own-key call is reconciled against the upstream figure, not the fee', () => {
    expect(
      providerCostOf({ cost: 0.0001, is_byok: true, cost_details: { upstream_inference_cost: 0.002 } }),
    ).toBe(0.002);
  });

  it('a bring-your-own-key call without a readable upstream figure has no provider cost', () => {
    expect(providerCostOf({ cost: 0.0001, is_byok: true })).toBeNull();
    expect(providerCostOf({ cost: 0.0001, is_byok: true, cost_details: null })).toBeNull();
    expect(
      providerCostOf({ cost: 0.0001, is_byok: true, cost_details: { upstream_inference_cost: '0.002' } }),
    ).toBeNull();
    expect(
      providerCostOf({ cost: 0.0001, is_byok: 'true', cost_details: { upstream_inference_cost: 0.002 } }),
    ).toBe(0.0001);
  });
});
