import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, request, user } from '../../test/support/test-support.js';
import { resolveModelId } from '../chat/models.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { GATEWAY_PRICES } from './gateway-prices.js';
import { perTokenText } from './per-token-price.js';

describe("the gateway flavour's models listing", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ flavor: 'gateway' });
    return () => emulator.close();
  });
  beforeEach(() => emulator.setFaults([]));

  it('names each model <vendor>/<id> with exact per-token decimal prices from its own table', async () => {
    const { json } = await request(emulator.url, '/models');
    for (const [id, price] of Object.entries(GATEWAY_PRICES)) {
      const entry = json.data.find((model: { id: string }) => model.id === `primary/${id}`);
      expect(entry.pricing).toEqual({
        prompt: perTokenText(price.inputPerMillion),
        completion: perTokenText(price.outputPerMillion),
        input_cache_read: perTokenText(price.cachedPerMillion),
      });
    }
    expect(json.data[1].pricing.completion).toBe('0.00000396');
  });

  it('writes per-million figures as per-token decimals without a float division', () => {
    expect(perTokenText(0.014)).toBe('0.000000014');
    expect(perTokenText(1e-7)).toBe('0.0000000000001');
    expect(perTokenText(12)).toBe('0.000012');
    expect(perTokenText(1_234_567.5)).toBe('1.2345675');
    expect(perTokenText(0)).toBe('0');
    expect(() => perTokenText(-1)).toThrow(RangeError);
  });

  it('changes one price, adds a tier or an unlisted model as the fault plan says', async () => {
    const tier = { above_input_tokens: 128_000, prompt: '0.00000088', completion: '0.00000264' };
    emulator.setFaults([
      {
        path: '/models',
        listing: {
          pricing: {
            'primary/primary-flash': { prompt: '0.0000005' },
            'primary/primary-v4-pro': { tiers: [tier] },
            'primary/primary-next': { prompt: '0.000001', completion: '0.000002' },
          },
        },
      },
    ]);
    const { json } = await request(emulator.url, '/models');
    expect(json.data[0].pricing).toEqual({
      prompt: '0.0000005',
      completion: '0.00000132',
      input_cache_read: '0.000000014',
    });
    expect(json.data[1].pricing.tiers).toEqual([tier]);
    expect(json.data[2]).toEqual({
      id: 'primary/primary-next',
      object: 'model',
      pricing: { prompt: '0.000001', completion: '0.000002' },
    });
  });

  it('serves hostile listings: padded, of the wrong types, deeply nested', async () => {
    emulator.reset();
    emulator.setFaults([
      { requests: 1, listing: { padding: 3 } },
      { requests: 2, listing: { data: 'not a list' } },
      { requests: 3, listing: { nesting: 100_000 } },
    ]);
    expect(
      (await request(emulator.url, '/models')).json.data.map((entry: { id: string }) => entry.id),
    ).toEqual([
      'primary/primary-flash',
      'primary/primary-v4-pro',
      'primary/filler-1',
      'primary/filler-2',
      'primary/filler-3',
    ]);
    expect((await request(emulator.url, '/models')).json.data).toBe('not a list');
    const deep = await request(emulator.url, '/models');
    expect(deep.text.length).toBeGreaterThan(200_000);
    expect(deep.text).toContain(`"prompt":${'['.repeat(100_000)}"0"${']'.repeat(100_000)}`);
  });

  it('matches model ids exactly: a look-alike is no model of its own here, and no price', async () => {
    const { json } = await request(emulator.url, '/models');
    const ids = json.data.map((model: { id: string }) => model.id);
    for (const id of ['primary-flash-2', 'PRIMARY-FLASH', 'primary-flash:free', ' primary-flash']) {
      expect(resolveModelId(id), id).toBeNull();
      expect(GATEWAY_PRICES[id], id).toBeUndefined();
      expect(ids, id).not.toContain(`primary/${id}`);
      const reply = await postChat(emulator.url, { model: id, messages: [user('Hi')] });
      expect(reply.status, id).toBe(400);
      expect(reply.json.error.code).toBe('model_not_found');
    }
  });

  it('leaves chat replies alone and refuses a malformed listing fault', async () => {
    expect(() => emulator.setFaults([{ listing: { pricing: [] as never } }])).toThrow(/listing.pricing/);
    expect(() => emulator.setFaults([{ listing: { padding: -1 } }])).toThrow(/listing.padding/);
    expect(() => emulator.setFaults([{ listing: { extra: 1 } as never }])).toThrow(/unknown field 'extra'/);
  });
});
