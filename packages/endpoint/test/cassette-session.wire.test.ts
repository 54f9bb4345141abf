import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChatAdapter,
  ChatError,
  type ChatMessage,
  type ChatResponse,
  type ToolSchema,
  toAssistantMessage,
} from '@switchboard/adapter';
import { readCassette } from '@switchboard/cassette';
import { PriceBook } from '@switchboard/prices';
import { CallJournal, reportJournal } from '@switchboard/telemetry';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdapterResolution, resolveChatEndpoint } from '../src/index.js';
import { probeSockets } from './support/socket-probe.js';

const KEY = 'sk-session-key-0123456789abcdefghij';
const dir = mkdtempSync(join(tmpdir(), 'switchboard-cassette-session-'));
const GREP_TOOL: ToolSchema = {
  type: 'function' as const,
  function: {
    name: 'grep_repository',
    description: 'Search the repository for a pattern',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};

afterEach(closeTestEmulators);

interface SessionResult {
  readonly responses: ChatResponse[];
  /** The streamed call's deltas, in order, as JSON text. */
  readonly deltas: string[];
}

/** A multi-role session: a tool loop replaying reasoning, JSON mode with its retry, a bounded call, a 429 then success, a streamed call. */
async function runSession(client: ChatAdapter): Promise<SessionResult> {
  const responses: ChatResponse[] = [];
  const hunter = client.forRole('hunter');
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Use grep_repository to find every eval call in the build scripts' },
  ];
  const toolTurn = await hunter.complete({ model: 'primary-flash', messages, tools: [GREP_TOOL] });
  responses.push(toolTurn);
  messages.push(toAssistantMessage(toolTurn));
  for (const call of toolTurn.toolCalls) {
    messages.push({ role: 'tool', tool_call_id: call.id, content: 'scripts/build.sh:12: eval "$INPUT"' });
  }
  responses.push(await hunter.complete({ model: 'primary-flash', messages, tools: [GREP_TOOL] }));
  const judge = client.forRole('judge');
  responses.push(
    await judge.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'Rate the finding as JSON' }],
      jsonObject: true,
    }),
  );
  responses.push(
    await judge.bounded(8).complete({
      model: 'primary-v4-pro',
      messages: [{ role: 'user', content: 'Summarise the finding in a long paragraph please' }],
    }),
  );
  responses.push(
    await client.forRole('reporter').complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'Write the report title' }],
    }),
  );
  const stream = client.forRole('narrator').stream({
    model: 'primary-flash',
    messages: [{ role: 'user', content: 'Tell the story of the finding in two sentences' }],
  });
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(JSON.stringify(delta));
  responses.push(await stream.response);
  return { responses, deltas };
}

const timeless = (response: ChatResponse) => ({
  ...response,
  calls: response.calls.map(
    ({ at: _at, durationMs: _ms, firstDeltaMs: _first, callId: _id, ...call }) => call,
  ),
});

function journalLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const {
        at: _at,
        durationMs: _ms,
        firstDeltaMs: _first,
        callId: _id,
        ...rest
      } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

async function journaledSession(env: Record<string, string>, journalPath: string, priceBook?: PriceBook) {
  const probe = resolveChatEndpoint(
    { models: { thinking: true } },
    { env, ...(priceBook ? { priceBook } : {}) },
  );
  if (!isAdapterResolution(probe)) throw new Error('expected an adapter route');
  const journal = new CallJournal(journalPath, { endpoint: probe.endpoint, exitHooks: false });
  probe.client.observe(journal);
  const result = await runSession(probe.client);
  await journal.close();
  return { ...result, endpoint: probe.endpoint, costUsd: probe.client.totalCostUsd() };
}

describe('a cassette under resolveChatEndpoint', () => {
  it('records a multi-role session and replays it with the server stopped and no real key: same replies, records, journal and report, no socket', async () => {
    const emulator = await startTestEmulator({
      key: KEY,
      // The first JSON-mode request (request 3) (empty: the adapter retries it as request 4);
      // request 6 is the reporter's first attempt: a 429, retried after 5 ms.
      emptyJson: [1],
      faults: [{ requests: [6], status: 429, retryAfterMs: 5 }],
    });
    const cassette = join(dir, 'session.cassette.jsonl');
    const recordSockets = probeSockets();
    const recorded = await journaledSession(
      {
        PRIMARY_API_KEY: KEY,
        PRIMARY_BASE_URL: emulator.url,
        SWITCHBOARD_CASSETTE: 'record',
        SWITCHBOARD_CASSETTE_PATH: cassette,
      },
      join(dir, 'recorded.jsonl'),
    );
    expect(recordSockets.stop()).toBeGreaterThan(0);
    expect(emulator.requests).toHaveLength(8);
    // The session did what it claims: a tool call with reasoning, a JSON retry, a cap, a retried 429.
    expect(recorded.responses[0]?.toolCalls).toHaveLength(1);
    expect(recorded.responses[0]?.reasoning).not.toBeNull();
    expect(recorded.responses[2]?.calls).toHaveLength(2);
    expect(recorded.responses[3]?.finishReason).toBe('length');
    expect(recorded.responses[4]?.calls[0]?.attempts).toBe(2);
    expect(readCassette(cassette).entries).toHaveLength(7);
    expect(readCassette(cassette).entries[6]?.streamed).toBe(true);
    expect(recorded.responses[5]?.calls[0]?.streamed).toBe(true);
    expect(recorded.deltas.length).toBeGreaterThan(3);
    expect(readFileSync(cassette, 'utf8')).not.toContain(KEY);
    await emulator.close();

    // Today's table says something else: replay must still cost the run as recorded.
    const dearer = new PriceBook({ 'primary-flash': { cacheHitPerM: 1, inputPerM: 10, outputPerM: 100 } });
    const replaySockets = probeSockets();
    // Nor does the address matter: the route resolves to today's default, the record is the recorded one.
    const replayed = await journaledSession(
      {
        PRIMARY_API_KEY: 'placeholder-not-a-key',
        SWITCHBOARD_CASSETTE: 'replay',
        SWITCHBOARD_CASSETTE_PATH: cassette,
      },
      join(dir, 'replayed.jsonl'),
      dearer,
    );
    expect(replaySockets.stop()).toBe(0);
    expect(replayed.responses.map(timeless)).toEqual(recorded.responses.map(timeless));
    expect(replayed.deltas).toEqual(recorded.deltas);
    expect(replayed.endpoint).toEqual(recorded.endpoint);
    expect(replayed.endpoint.baseUrl).toBe(emulator.url);
    expect(replayed.costUsd).toBe(recorded.costUsd);
    expect(recorded.costUsd).toBeGreaterThan(0);
    expect(journalLines(join(dir, 'replayed.jsonl'))).toEqual(journalLines(join(dir, 'recorded.jsonl')));
    const [before, after] = await Promise.all([
      reportJournal(join(dir, 'recorded.jsonl')),
      reportJournal(join(dir, 'replayed.jsonl')),
    ]);
    // Everything but time: a fast replay takes no time.
    const money = (figures: typeof before) =>
      JSON.parse(
        JSON.stringify(
          {
            totals: figures.totals,
            byRole: figures.byRole,
            byModel: figures.byModel,
            byEndpoint: figures.byEndpoint,
            cache: figures.cache,
            errors: figures.errors,
          },
          (key, value) => (key === 'durationMs' || key === 'firstDeltaMs' ? undefined : value),
        ),
      );
    expect(money(after)).toEqual(money(before));
    expect(after.totals.costUsd).toBe(recorded.costUsd);

    // The re-pricing option shows what the same run costs at today's prices.
    const repriced = resolveChatEndpoint(
      { models: { thinking: true } },
      {
        env: { PRIMARY_API_KEY: 'placeholder-not-a-key', PRIMARY_BASE_URL: emulator.url },
        priceBook: dearer,
        cassette: { mode: 'replay', path: cassette, reprice: true },
      },
    );
    if (!isAdapterResolution(repriced)) throw new Error('expected an adapter route');
    await runSession(repriced.client);
    expect(repriced.client.totalCostUsd()).toBeGreaterThan(recorded.costUsd * 5);
  });

  it('a cassette recorded with a key does not answer a route without one', async () => {
    const emulator = await startTestEmulator({ key: KEY });
    const cassette = join(dir, 'keyed.cassette.jsonl');
    const config = { models: { chat_base_url: emulator.url, chat_api_key_env: 'TEAM_API_KEY' } };
    const recorder = resolveChatEndpoint(config, {
      env: { TEAM_API_KEY: KEY },
      cassette: { mode: 'record', path: cassette },
    });
    const request = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] as ChatMessage[] };
    await recorder?.client.complete(request);
    await emulator.close();
    const keyless = resolveChatEndpoint(config, { env: {}, cassette: { mode: 'replay', path: cassette } });
    const error = await keyless?.client.complete(request).catch((failure: unknown) => failure);
    expect(ChatError.isInstance(error) && error.kind).toBe('cassette_miss');
    expect(String((error as Error).message)).toContain('key: recorded with a key, now without a key');
    const keyed = resolveChatEndpoint(config, {
      env: { TEAM_API_KEY: 'any-other-value' },
      cassette: { mode: 'replay', path: cassette },
    });
    expect((await keyed?.client.complete(request))?.content).toContain('hi');
  });

  it('records with the run and the secrets of the environment resolution read', async () => {
    const emulator = await startTestEmulator({ key: KEY });
    const cassette = join(dir, 'run.cassette.jsonl');
    const other = 'ghs-other-secret-0123456789abcdef';
    const recorder = resolveChatEndpoint(
      {},
      {
        env: {
          PRIMARY_API_KEY: KEY,
          PRIMARY_BASE_URL: emulator.url,
          SWITCHBOARD_CASSETTE_RUN: 'nightly-42',
          DEPLOY_TOKEN: other,
        },
        cassette: { mode: 'record', path: cassette },
      },
    );
    await recorder?.client.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: `the deploy token is ${other}` }],
    });
    await emulator.close();
    const text = readFileSync(cassette, 'utf8');
    expect(JSON.parse(text.split('\n')[0] as string).run).toBe('nightly-42');
    expect(text).not.toContain(other);
    expect(text).not.toContain(KEY);
  });

  it('says which variable names a cassette that cannot be read or recorded to', () => {
    const env = {
      PRIMARY_API_KEY: 'placeholder-not-a-key',
      SWITCHBOARD_CASSETTE: 'replay',
      SWITCHBOARD_CASSETTE_PATH: join(dir, 'missing.cassette.jsonl'),
    };
    expect(() => resolveChatEndpoint({}, { env })).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        path: 'SWITCHBOARD_CASSETTE_PATH',
        message: expect.stringContaining('no such cassette file'),
      }),
    );
    expect(() =>
      resolveChatEndpoint(
        {},
        {
          env: { PRIMARY_API_KEY: 'k' },
          cassette: { mode: 'record', path: join(dir, 'no', 'such', 'x.jsonl') },
        },
      ),
    ).toThrow(expect.objectContaining({ name: 'ConfigError', path: 'options.cassette.path' }));
  });

  it('wraps the gateway route too: reasoning_details replayed unchanged across a tool turn, the provider cost kept', async () => {
    const emulator = await startTestEmulator({ flavor: 'gateway', key: KEY });
    const cassette = join(dir, 'gateway.cassette.jsonl');
    const env = { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: emulator.url };
    const recording = resolveChatEndpoint({}, { env, cassette: { mode: 'record', path: cassette } });
    if (!isAdapterResolution(recording)) throw new Error('expected an adapter route');
    const recorded = await runSession(recording.client);
    expect(recorded.responses[0]?.reasoningDetails).not.toBeNull();
    await emulator.close();
    const replaying = resolveChatEndpoint(
      {},
      { env: { GATEWAY_API_KEY: 'placeholder' }, cassette: { mode: 'replay', path: cassette } },
    );
    if (!isAdapterResolution(replaying)) throw new Error('expected an adapter route');
    expect(replaying.rule).toBe('gateway');
    const replayed = await runSession(replaying.client);
    expect(replayed.responses.map(timeless)).toEqual(recorded.responses.map(timeless));
    expect(replaying.client.totalCostUsd()).toBe(recording.client.totalCostUsd());
    expect(replaying.endpoint).toEqual(recording.endpoint);
  });
});
