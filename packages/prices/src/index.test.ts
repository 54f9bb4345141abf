import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import * as api from './index.js';

describe('@switchboard/prices public surface', () => {
  it('exports the contract names', () => {
    expect(typeof api.priceOf).toBe('function');
    expect(typeof api.costOf).toBe('function');
    expect(api.PRICE_TABLE).toBeInstanceOf(Map);
  });

  it('exports the names of the second round (issue 11)', () => {
    expect(new api.PriceBook()).toBeInstanceOf(api.PriceBook);
    expect(api.PriceBook.name).toBe('PriceBook');
    expect(typeof api.providerCostOf).toBe('function');
    expect(typeof api.tokensOf).toBe('function');
    expect(api.PRICES_VERSION).toBe(packageJson.version);
  });
});
