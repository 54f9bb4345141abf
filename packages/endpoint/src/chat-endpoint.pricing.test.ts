import { inspect } from 'node:util';
import { PRICES_VERSION, PriceBook, priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { ChatEndpoint } from './chat-endpoint.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

const at = new Date('2026-06-03T02:00:00Z');
const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 };
const flash = priceOf('primary-flash');
const custom = Object.freeze({ cacheHitPerM: 1, inputPerM: 2, outputPerM: 3 });

function bookEndpoint(prices = flash) {
  return new ChatEndpoint({
    provider: 'primary',
    baseUrl: 'https://api.primary.example',
    thinking: false,
    prices,
    pricingModel: 'primary-flash',
    priceBook: new PriceBook(),
  });
}

/** A hand-built endpoint with its own prices and no book. */
function customEndpoint(pricingModel: string | null) {
  return new ChatEndpoint({
    provider: 'custom',
    baseUrl: 'http://x.test',
    thinking: false,
    prices: custom,
    pricingModel,
  });
}

describe('ChatEndpoint', () => {
  describe('priceCall with a price book', () => {
    it("prices a call by its own model's price in the book", () => {
      expect(bookEndpoint().priceCall({ model: ' primary-v4-pro ', usage, at })).toEqual({
        costUsd: (1.32 + 3.96) * 1,
        pricedAs: 'primary-v4-pro',
        priceSource: 'table',
        tariff: null,
        providerCostUsd: null,
        priceVersion: PRICES_VERSION,
        priceCheckedAt: '2026-11-22',
      });
    });

    it('prices the alias primary-chat as the default model', () => {
      expect(bookEndpoint().priceCall({ model: 'primary-chat', usage, at })).toMatchObject({
        pricedAs: 'primary-flash',
        priceSource: 'table',
      });
    });

    it('gives cost(usage) for a call on the pricing model', () => {
      const endpoint = bookEndpoint();
      expect(endpoint.priceCall({ model: 'primary-flash', usage, at }).costUsd).toBe(endpoint.cost(usage));
    });

    it("takes the provider's usage.cost for a model the book does not know, and null without one", () => {
      const endpoint = bookEndpoint();
      expect(endpoint.priceCall({ model: 'other', usage: { ...usage, cost: 0.5 }, at })).toMatchObject({
        costUsd: 0.5,
        pricedAs: 'other',
        priceSource: 'provider',
        providerCostUsd: 0.5,
      });
      expect(endpoint.priceCall({ model: 'other', usage, at })).toMatchObject({
        costUsd: null,
        pricedAs: null,
        priceSource: null,
      });
    });

    it("keeps the provider's cost beside the book's price when both exist", () => {
      const pricing = bookEndpoint().priceCall({ model: 'primary-flash', usage: { ...usage, cost: 9 }, at });
      expect(pricing).toMatchObject({ costUsd: 0.44 + 1.32, priceSource: 'table', providerCostUsd: 9 });
    });
  });

  describe('priceCall without a price book', () => {
    it("prices a model the table does not know at the endpoint's prices when the pricing model is unknown", () => {
      const endpoint = customEndpoint(null);
      expect(endpoint.priceCall({ model: 'anything', usage, at })).toMatchObject({
        costUsd: 5,
        pricedAs: null,
        priceSource: 'endpoint',
        priceVersion: null,
      });
    });

    it("prices a model the shipped table knows at its own table price, not at the endpoint's", () => {
      for (const endpoint of [customEndpoint(null), customEndpoint('house-model')]) {
        expect(endpoint.priceCall({ model: ' primary-v4-pro ', usage, at })).toEqual({
          costUsd: 1.32 + 3.96,
          pricedAs: 'primary-v4-pro',
          priceSource: 'table',
          tariff: null,
          providerCostUsd: null,
          priceVersion: PRICES_VERSION,
          priceCheckedAt: '2026-11-22',
        });
      }
    });

    // The pricing model and models the table does not know cost the endpoint's prices; the code's
    // own prices also win for a pricing model the table knows; other table models keep the table's.
    it.each([
      ['house-model', 'house-model', { costUsd: 5, pricedAs: 'house-model', priceSource: 'endpoint' }],
      ['house-model', 'other', { costUsd: 5, priceSource: 'endpoint' }],
      ['primary-flash', 'primary-flash', { costUsd: 5, pricedAs: 'primary-flash', priceSource: 'endpoint' }],
      ['primary-flash', 'primary-v4-pro', { costUsd: 1.32 + 3.96, priceSource: 'table' }],
    ])('with pricing model %s, prices a call to %s as %o', (pricingModel, model, expected) => {
      expect(customEndpoint(pricingModel).priceCall({ model, usage, at })).toMatchObject(expected);
    });

    it('prices a table model at its table price even with no prices at all', () => {
      const endpoint = new ChatEndpoint({ provider: 'custom', baseUrl: 'http://x.test', thinking: false });
      expect(endpoint.priceCall({ model: 'primary-flash', usage, at })).toMatchObject({
        costUsd: 0.44 + 1.32,
        priceSource: 'table',
      });
      expect(endpoint.priceCall({ model: 'other', usage, at }).costUsd).toBeNull();
    });
  });

  describe('its record form', () => {
    it('keeps the book and pricing model out of JSON and inspect, and stays frozen', () => {
      const endpoint = bookEndpoint();
      expect(Object.isFrozen(endpoint)).toBe(true);
      expect(JSON.parse(JSON.stringify(endpoint))).toEqual({
        provider: 'primary',
        baseUrl: 'https://api.primary.example',
        thinking: false,
        prices: flash,
      });
      expect(inspect(endpoint)).not.toMatch(/PriceBook|pricingModel/);
    });

    it('refuses a priceBook that is not a PriceBook and a pricingModel that is not a string', () => {
      const base = { provider: 'custom' as const, baseUrl: '', thinking: false };
      expect(() => new ChatEndpoint({ ...base, priceBook: {} as never })).toThrow(
        /priceBook must be a PriceBook/,
      );
      expect(() => new ChatEndpoint({ ...base, pricingModel: 3 as never })).toThrow(
        /pricingModel must be a string/,
      );
    });
  });
});

describe('resolveChatEndpoint', () => {
  describe('the price book of the resolved endpoint', () => {
    const env = { PRIMARY_API_KEY: 'k-1' };

    it('prices a configured hunter model by its [prices."id"] entry', () => {
      const resolved = resolveChatEndpoint(
        {
          models: { hunter: 'some-other-model' },
          prices: { 'some-other-model': { cache_hit_per_m: 0.1, input_per_m: 1, output_per_m: 2 } },
        },
        { env },
      );
      expect(resolved?.endpoint.prices).toEqual({ cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 2 });
      expect(resolved?.endpoint.pricingModel).toBe('some-other-model');
    });

    it('adds the code book of options.priceBook, configuration entries on top', () => {
      const priceBook = new PriceBook({ 'code-model': custom, 'both-model': custom });
      const resolved = resolveChatEndpoint(
        { prices: { 'both-model': { cache_hit_per_m: 0, input_per_m: 10, output_per_m: 0 } } },
        { env, priceBook },
      );
      const endpoint = resolved?.endpoint;
      expect(endpoint?.priceCall({ model: 'code-model', usage, at }).costUsd).toBe(5);
      expect(endpoint?.priceCall({ model: 'both-model', usage, at }).costUsd).toBe(10);
      expect(endpoint?.priceCall({ model: 'primary-v4-pro', usage, at }).pricedAs).toBe('primary-v4-pro');
    });

    it('refuses an options.priceBook that is not a PriceBook', () => {
      expect(() => resolveChatEndpoint({}, { env, priceBook: { x: custom } as never })).toThrow(
        /priceBook: expected a PriceBook/,
      );
    });

    it('gives the scripted record no book: its priceCall prices nothing', () => {
      const resolved = resolveChatEndpoint({}, { env: { SWITCHBOARD_CLIENT: 'scripted' } });
      expect(resolved?.endpoint.priceBook).toBeNull();
      expect(resolved?.endpoint.priceCall({ model: 'primary-flash', usage, at }).costUsd).toBeNull();
    });
  });
});
