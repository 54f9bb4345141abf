import { readFileSync, writeFileSync } from 'node:fs';
import type { CostModel, TransportRequest } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { examineCassette, recordCassette, type TransportEventStream } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { contentEvents, plainTransport, streamTransport } from './support/stub-transports.js';

// Issue 40.17: a cassette edited to claim $0 for 3M tokens passed `cassette check` and replayed at
// $0, since replay bills the pricing a line records. With the prices in force, the check re-prices
// each call from its usage as recording did and names a recorded cost they do not give.

/** Flat primary-flash prices (0.014 / 0.44 / 1.32 USD per million), priced as a price book would. */
const flash: CostModel = {
  cost: () => null,
  priceCall: ({ model, usage }) => {
    const count = (key: string) => Number((usage as Record<string, unknown>)[key] ?? 0);
    return {
      costUsd: (count('prompt_tokens') * 0.44 + count('completion_tokens') * 1.32) / 1e6,
      pricedAs: model === 'primary-flash' ? 'primary-flash' : null,
      priceSource: 'table',
      tariff: null,
      priceCheckedAt: '2026-11-22',
    };
  },
};

const request = (content: string): TransportRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
  tools: undefined,
  timeoutSeconds: 60,
  extraBody: {},
});

const reply = (content: string) => ({
  id: 'chatcmpl-r',
  model: 'primary-flash',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1000, completion_tokens: 500 },
});

async function drain(stream: TransportEventStream): Promise<void> {
  for await (const _event of stream) {
    // read to the end, so the recorder writes the line
  }
}

/** Rewrites entry `call` (1-based; line `call + 1`) of a cassette with `edit`. */
// biome-ignore lint/suspicious/noExplicitAny: the test edits arbitrary paths of a cassette line.
function editEntry(path: string, call: number, edit: (entry: any) => void): void {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const entry = JSON.parse(lines[call] as string);
  edit(entry);
  lines[call] = JSON.stringify(entry);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('examineCassette with the prices in force (issue 40.17)', () => {
  it('passes calls whose recorded costs their usage gives, and names one edited to claim $0 for 3M tokens', async () => {
    const path = cassettePath('reprice');
    const recorder = recordCassette(path, plainTransport(reply('fine')), { costModel: flash });
    await recorder.completeChatRaw(request('first'));
    await recorder.completeChatRaw(request('second'));
    expect(examineCassette(path, { costModel: flash }).problems).toEqual([]);

    editEntry(path, 2, (entry) => {
      entry.reply.body.usage = { prompt_tokens: 3_000_000, completion_tokens: 0 };
      entry.pricing.costUsd = 0;
    });
    expect(examineCassette(path, { costModel: flash }).problems).toEqual([
      {
        line: null,
        message:
          'call 2: "pricing" records $0 for 3,000,000 prompt and 0 completion tokens of "primary-flash" (priced as "primary-flash", from the price book, checked 2026-11-22), but its usage costs $1.32 at those very prices: the line was edited by hand; replay bills what it says',
      },
    ]);
    // Without the prices, the check cannot tell: what it did before.
    expect(examineCassette(path).problems).toEqual([]);
  });

  it('re-prices a stream by the usage of its last chunk that carried one', async () => {
    const path = cassettePath('reprice-stream');
    const recorder = recordCassette(path, streamTransport(contentEvents(['a', 'b'])), { costModel: flash });
    await drain(await recorder.streamChatRaw(request('stream')));
    expect(examineCassette(path, { costModel: flash }).problems).toEqual([]);

    editEntry(path, 1, (entry) => {
      const events = entry.reply.events as { data?: string }[];
      const usage = events.find((event) => event.data?.includes('"usage"')) as { data: string };
      usage.data = usage.data.replace('"prompt_tokens":5', '"prompt_tokens":3000000');
    });
    const [problem] = examineCassette(path, { costModel: flash }).problems;
    expect(problem?.message).toMatch(
      /^call 1: "pricing" records \$0\.00000484 for 3,000,000 prompt and 2 completion tokens of "primary-flash" .*but its usage costs \$1\.32000264 at those very prices/,
    );
  });

  it('names a recorded cost that the prices in force cannot price at all', async () => {
    const path = cassettePath('reprice-unknown');
    const recorder = recordCassette(path, plainTransport(reply('fine')), { costModel: flash });
    await recorder.completeChatRaw(request('first'));
    const nothing: CostModel = { cost: () => null };
    const [problem] = examineCassette(path, { costModel: nothing }).problems;
    expect(problem?.message).toContain(
      'call 1: "pricing" records $0.0011 for 1,000 prompt and 500 completion tokens of "primary-flash", and the prices in force cannot price that model',
    );
  });
});
