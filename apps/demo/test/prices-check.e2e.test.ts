import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type Emulator, type ListingFault, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const KEY = 'gateway-check-key-0123456789';
const directory = tempDirectory('switchboard-prices-check-');
let gateway: Emulator;

beforeAll(async () => {
  gateway = await startEmulator({ key: KEY, flavor: 'gateway' });
});
afterAll(() => gateway.close());
beforeEach(() => gateway.setFaults([]));

const check = (...args: string[]) =>
  runCli(['prices', 'check', '--gateway', gateway.url, ...args], { GATEWAY_API_KEY: KEY });
const listing = (fault: ListingFault) => gateway.setFaults([{ path: '/models', listing: fault }]);

describe('switchboard prices check against the gateway flavour', () => {
  it('exits 0 when every price both sides hold agrees, naming ours the listing lacks', async () => {
    const run = await check();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /6 prices compared with http:\/\/127\.0\.0\.1:\d+\/api\/v1\/models .*: every price both sides hold agrees/,
    );
    expect(run.stdout).toContain(
      'priced here, not listed (3): primary-v4.1-flash (table), primary-v4-flash (table)',
    );
    expect(gateway.requests.at(-1)?.headers.authorization).toBe('Bearer [redacted]');
  });

  it('exits 1 naming a changed price: model, field, ours, theirs, our checked date and source', async () => {
    listing({ pricing: { 'primary/primary-flash': { prompt: '0.0000005' } } });
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /│ primary-flash\s+│ inputPerM\s+│ 0\.44\s+│ 0\.5\s+│ table, checked 2026-11-22 │ the primary platform's published list prices │/,
    );
    expect(run.stdout).toContain('1 price differs');
    expect(run.stderr).toBe('switchboard: 1 of our prices differ from the listing\n');
    const json = await check('--json');
    expect(json.code).toBe(1);
    const document = JSON.parse(json.stdout);
    expect(document.agree).toBe(false);
    expect(document.differences).toEqual([
      {
        model: 'primary-flash',
        listedId: 'primary/primary-flash',
        origin: 'table',
        field: 'inputPerM',
        ours: '0.44',
        theirs: '0.5',
        checkedAt: '2026-11-22',
        source: "the primary platform's published list prices",
      },
    ]);
    expect(`${run.stdout}${run.stderr}${json.stdout}`).not.toContain(KEY);
  });

  it('compares cache prices exactly, with no float rounding between per token and per million', async () => {
    // 0.014 per million is 0.000000014 per token; one more digit is a difference.
    listing({ pricing: { 'primary/primary-v4-pro': { input_cache_read: '0.0000000440000001' } } });
    const run = await check('--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).differences).toMatchObject([
      { model: 'primary-v4-pro', field: 'cacheHitPerM', ours: '0.044', theirs: '0.0440000001' },
    ]);
    listing({ pricing: { 'primary/primary-v4-pro': { input_cache_read: '4.4e-8' } } });
    expect((await check()).code).toBe(0);
  });

  it("compares tiers by threshold: a configured tier against the listing's, and a tier only one side has", async () => {
    const tier = {
      above_input_tokens: 128_000,
      input_cache_read: '0.0000001',
      prompt: '0.000002',
      completion: '0.000004',
    };
    listing({
      pricing: {
        'primary/primary-flash': { tiers: [tier] },
        'primary/lab-model': {
          prompt: '0.000001',
          completion: '0.000004',
          input_cache_read: '0.0000001',
          tiers: [{ ...tier, completion: '0.000009' }],
        },
      },
    });
    const config = await directory.file(
      'tiers.toml',
      [
        '[prices."lab-model"]',
        'cache_hit_per_m = 0.1',
        'input_per_m = 1',
        'output_per_m = 4',
        'checked_at = 2026-11-20',
        'source = "the lab\'s rate card"',
        '[[prices."lab-model".tiers]]',
        'above_input_tokens = 128_000',
        'cache_hit_per_m = 0.1',
        'input_per_m = 2',
        'output_per_m = 8',
        '',
      ].join('\n'),
    );
    const run = await check('--json', '--config', config);
    expect(run.code).toBe(1);
    const { differences } = JSON.parse(run.stdout);
    expect(differences).toEqual([
      expect.objectContaining({
        model: 'primary-flash',
        field: 'tiers[>128000]',
        ours: null,
        theirs: '0.1 / 2 / 4',
      }),
      expect.objectContaining({
        model: 'lab-model',
        origin: 'config',
        field: 'tiers[>128000].outputPerM',
        ours: '8',
        theirs: '9',
        checkedAt: '2026-11-20',
        source: "the lab's rate card",
      }),
    ]);
  });
});

describe('exact names: the listing maps to our ids by its vendor prefix alone', () => {
  it('look-alike ids are models of their own: unpriced here, never compared with primary-flash', async () => {
    const cheap = { prompt: '0', completion: '0', input_cache_read: '0' };
    listing({
      pricing: {
        'primary/primary-flash-2': cheap,
        'primary/PRIMARY-FLASH': cheap,
        'primary/primary-flash:free': cheap,
        'primary/ primary-flash': cheap,
      },
    });
    const run = await check('--json');
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.theirsWeLack).toEqual([
      'primary/primary-flash-2',
      'primary/PRIMARY-FLASH',
      'primary/primary-flash:free',
      'primary/ primary-flash',
    ]);
    expect(document.differences).toEqual([]);
    expect(document.ambiguous).toEqual([]);
  });

  it('a look-alike priced from its own configuration entry is compared with that entry', async () => {
    const config = await directory.file(
      'free.toml',
      '[prices."primary-flash:free"]\ncache_hit_per_m = 0\ninput_per_m = 0\noutput_per_m = 0.1\n',
    );
    listing({
      pricing: { 'primary/primary-flash:free': { prompt: '0', completion: '0', input_cache_read: '0' } },
    });
    const run = await check('--json', '--config', config);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).differences).toEqual([
      expect.objectContaining({ model: 'primary-flash:free', field: 'outputPerM', ours: '0.1', theirs: '0' }),
    ]);
  });

  it('two listed ids for one of ours are named, never one picked', async () => {
    listing({ pricing: { 'other/primary-flash': { prompt: '0.00000044' } } });
    const run = await check('--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).ambiguous).toEqual([
      { model: 'primary-flash', listedIds: ['primary/primary-flash', 'other/primary-flash'] },
    ]);
  });
});

describe('a listing that cannot be read exits 2, within its bounds', () => {
  const cases: [string, Parameters<Emulator['setFaults']>[0], RegExp][] = [
    [
      'a redirect',
      [{ path: '/models', redirect: { location: 'http://127.0.0.2:9/models' } }],
      /answered 307, a redirect, which is refused/,
    ],
    [
      'a body that never ends',
      [{ path: '/models', endlessBody: true }],
      /its body passed 16777216 bytes \(counted after decoding\)/,
    ],
    [
      'too many entries',
      [{ path: '/models', listing: { padding: 20_001 } }],
      /it lists 20003 models, more than 20000/,
    ],
    [
      'nesting 100,000 deep',
      [{ path: '/models', listing: { nesting: 100_000 } }],
      /its JSON nests deeper than 32 levels/,
    ],
    [
      'data of the wrong type',
      [{ path: '/models', listing: { data: { models: [] } } }],
      /expected an object with a "data" array of models/,
    ],
    ['not JSON', [{ path: '/models', body: '<html>maintenance</html>' }], /it is not JSON/],
    ['an error status', [{ path: '/models', status: 503 }], /it answered 503/],
  ];
  for (const [name, faults, why] of cases) {
    it(name, async () => {
      gateway.setFaults(faults);
      const run = await check('--json');
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(why);
      expect(JSON.parse(run.stdout).error.exitCode).toBe(2);
      expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
    });
  }

  it('a small gzip body that decodes past the cap: counted after decoding', async () => {
    // 64 MiB of whitespace inside a listing, about 64 KiB on the wire.
    const bomb = gzipSync(
      Buffer.concat([Buffer.from('{"data":['), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from(']}')]),
    );
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(bomb);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const run = await runCli(['prices', 'check', '--gateway', `http://127.0.0.1:${port}/api/v1`]);
      expect(bomb.length).toBeLessThan(1024 * 1024);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /its body passed 16777216 bytes \(counted after decoding\); reading stopped there/,
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a price of ours listed as a number, not a decimal string', async () => {
    listing({ pricing: { 'primary/primary-flash': { prompt: 0.00000044 } } });
    const run = await check();
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      'cannot read the listed price of primary-flash: data[0].pricing.prompt: expected a decimal string of USD per token, got number',
    );
  });

  it('the key missing: the 401 is named, with where the key comes from', async () => {
    const run = await runCli(['prices', 'check', '--gateway', gateway.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/it answered 401 \(set GATEWAY_API_KEY\?\)/);
  });

  it('an address with credentials or without http(s) is refused before any request', async () => {
    const before = gateway.requests.length;
    const withCredentials = gateway.url.replace('http://', 'http://user:secret-password@');
    const run = await runCli(['prices', 'check', '--gateway', withCredentials]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the address carries credentials: give the key in GATEWAY_API_KEY instead');
    expect(run.stderr).not.toContain('secret-password');
    expect((await runCli(['prices', 'check', '--gateway', 'ftp://gateway.example'])).code).toBe(2);
    expect(gateway.requests.length).toBe(before);
  });
});
