import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@switchboard/prices public surface', () => {
  it('exports the contract names', () => {
    expect(typeof api.priceOf).toBe('function');
    expect(typeof api.costOf).toBe('function');
    expect(api.PRICE_TABLE).toBeInstanceOf(Map);
  });
});
