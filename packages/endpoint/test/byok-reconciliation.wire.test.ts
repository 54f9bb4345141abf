import type { CallRecord, ChatMessage } from '@switchboard/adapter';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdapterResolution, resolveChatEndpoint } from '../src/index.js';

// The gateway's own figures on the wire: a reply reporting both its cost and the upstream provider's, and a
// bring-your-own-key reply, through resolveChatEndpoint's adapter over a loopback socket to the gateway flavour.
const KEY = 'byok-wire-key-41d2';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the release branch green?' }];
// 1000 prompt and 100 completion tokens of primary-flash at 0.44 / 1.32 per million: 0.000572 USD by the table.
const tokens = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };

afterEach(closeTestEmulators);

async function callWithUsage(usage: Record<string, unknown>): Promise<CallRecord> {
  const emulator = await startTestEmulator({ key: KEY, flavor: 'gateway', faults: [{ usage }] });
  const resolved = resolveChatEndpoint({}, { env: { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: emulator.url } });
  if (!isAdapterResolution(resolved)) throw new Error('expected the gateway route');
  const response = await resolved.client.complete({ model: 'primary-flash', messages: question });
  expect(response.calls).toHaveLength(1);
  return response.calls[0] as CallRecord;
}

describe("reconciling with the gateway's cost figures", () => {
  it('a reply with a cost and an upstream cost: the cost is the provider figure, never their sum', async () => {
    const record = await callWithUsage({
      ...tokens,
      cost: 0.000572,
      cost_details: { upstream_inference_cost: 0.00055 },
    });
    expect(record).toMatchObject({ priceSource: 'table', costUsd: 0.000572, providerCostUsd: 0.000572 });
  });

  it('a bring-your-own-key reply is reconciled against its upstream figure, not the gateway fee', async () => {
    const record = await callWithUsage({
      ...tokens,
      cost: 0.0000286,
      is_byok: true,
      cost_details: { upstream_inference_cost: 0.000572 },
    });
    expect(record).toMatchObject({ priceSource: 'table', costUsd: 0.000572, providerCostUsd: 0.000572 });
  });
});
