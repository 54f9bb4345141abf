import { afterEach, describe, expect, it } from 'vitest';
import { readAll, sseBlocks } from '../../test/support/stream-support.js';
import { postChat, user } from '../../test/support/test-support.js';
import type { EmulatorOptions } from '../server/emulator-options.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';

const plain = {
  model: 'primary-flash',
  messages: [user('Which step of the nightly build failed?')],
  thinking: { type: 'disabled' },
  temperature: 0,
};
const streamed = { ...plain, stream: true, stream_options: { include_usage: true } };

describe('fault options for the books', () => {
  let emulator: Emulator;
  const start = async (options: EmulatorOptions) => {
    emulator = await startEmulator(options);
    return emulator;
  };
  afterEach(async () => {
    await emulator?.close();
  });
  const usageChunks = (text: string) => sseBlocks(text).filter((block) => block.data?.choices?.length === 0);

  it('stream.usage replaces the usage chunk as given; the bill stays what was generated', async () => {
    const odd = [
      {},
      { prompt_tokens: '12' },
      { input_tokens: 3, output_tokens: 5 },
      { total_tokens: 9 },
      null,
    ];
    await start({ faults: odd.map((usage, index) => ({ requests: index + 2, stream: { usage } })) });
    const whole = (await postChat(emulator.url, plain)).json.usage;
    for (const usage of odd) {
      const { text } = await readAll(emulator.url, streamed);
      expect(usageChunks(text).map((block) => block.data.usage)).toEqual([usage]);
    }
    const bill = emulator.bill();
    expect(bill.requests).toHaveLength(odd.length + 1);
    for (const billed of bill.requests) {
      expect(billed).toMatchObject({
        outcome: 'whole',
        usage: { completion_tokens: whole.completion_tokens },
      });
    }
  });

  it('usage (on the rule) replaces a plain reply body usage; the bill stays what was generated', async () => {
    await start({ faults: [{ usage: { prompt_tokens: -4, completion_tokens: -1 } }] });
    const reply = await postChat(emulator.url, plain);
    expect(reply.json.usage).toEqual({ prompt_tokens: -4, completion_tokens: -1 });
    expect(reply.json.choices[0].finish_reason).toBe('stop');
    const [billed] = emulator.bill().requests;
    expect(billed?.usage.completion_tokens).toBeGreaterThan(0);
    expect(billed?.costNanoUsd).toBeGreaterThan(0);
    expect(() => emulator.setFaults([{ usage: false }])).not.toThrow();
    expect(() => emulator.setFaults([{ usage: 1n }])).toThrow('faults[0].usage must be a JSON value');
  });

  it('usageEveryChunk: every chunk carries the counts so far, and the final usage chunk still comes', async () => {
    await start({ faults: [{ stream: { usageEveryChunk: true } }] });
    const { text } = await readAll(emulator.url, { ...streamed, thinking: undefined });
    const blocks = sseBlocks(text).filter((block) => block.data !== '[DONE]');
    const [final] = usageChunks(text);
    const running = blocks.filter((block) => block.data.choices.length > 0).map((block) => block.data.usage);
    expect(running.every((usage) => usage.prompt_tokens === final?.data.usage.prompt_tokens)).toBe(true);
    const counts = running.map((usage) => usage.completion_tokens);
    expect(counts[0]).toBe(0);
    expect(counts.every((count, index) => index === 0 || count >= (counts[index - 1] ?? 0))).toBe(true);
    expect(counts.at(-1)).toBe(final?.data.usage.completion_tokens);
    expect(running.at(-1).completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const noFinal = await startEmulator({ faults: [{ stream: { usageEveryChunk: true, noUsage: true } }] });
    try {
      const { text: bare } = await readAll(noFinal.url, streamed);
      expect(usageChunks(bare)).toEqual([]);
      expect(sseBlocks(bare).at(-2)?.data.usage.completion_tokens).toBeGreaterThan(0);
    } finally {
      await noFinal.close();
    }
  });

  it('usageEveryChunk on the gateway carries a running cost', async () => {
    await start({ flavor: 'gateway', faults: [{ stream: { usageEveryChunk: true } }] });
    const { text } = await readAll(emulator.url, { ...streamed, thinking: undefined });
    const [final] = usageChunks(text);
    const last = sseBlocks(text)
      .filter((block) => block.data?.choices?.length > 0)
      .at(-1);
    expect(last?.data.usage.cost).toBe(final?.data.usage.cost);
  });

  it('duplicateUsage sends the usage chunk twice', async () => {
    await start({ faults: [{ stream: { duplicateUsage: true } }] });
    const { text } = await readAll(emulator.url, streamed);
    const chunks = usageChunks(text);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toEqual(chunks[1]);
    expect(emulator.bill().requests[0]?.outcome).toBe('whole');
  });

  it('afterDone writes raw bytes after data: [DONE] before the body ends', async () => {
    await start({ faults: [{ stream: { afterDone: 'data: {"late":true}\n\ntrailing' } }] });
    const { text, broken } = await readAll(emulator.url, streamed);
    expect(broken).toBe(false);
    expect(text.endsWith('data: [DONE]\n\ndata: {"late":true}\n\ntrailing')).toBe(true);
    expect(emulator.bill().requests[0]?.outcome).toBe('whole');
    expect(() => emulator.setFaults([{ stream: { afterDone: 1 as never } }])).toThrow(
      'afterDone must be a string',
    );
  });

  it('errorEvent writes the errorAt event under the SSE event name error', async () => {
    await start({ faults: [{ stream: { errorAt: 3, errorCode: 500, errorEvent: true } }] });
    const { text } = await readAll(emulator.url, streamed);
    expect(text).toContain('\n\nevent: error\ndata: {"error":{"code":500,');
    const last = sseBlocks(text).at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data.error.code).toBe(500);
    expect(sseBlocks(text)).toHaveLength(3);
    expect(() => emulator.setFaults([{ stream: { errorEvent: true } }])).toThrow('errorEvent needs errorAt');
  });
});
