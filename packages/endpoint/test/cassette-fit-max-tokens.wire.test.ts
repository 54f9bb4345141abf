// Issue 30: a budget with fitMaxTokens fits calls made through a cassette. Recording, the
// wrapped transport sends each attempt with the cap the budget lowered and the cassette keeps
// the request as sent; replaying with the same budget, each call is matched with the cap the
// budget lowers it to, so it gets the recording made with that cap and the records are the same.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallRecord,
  ChatAdapter,
  type ChatTransport,
  type CompleteRequest,
  OpenAITransport,
} from '@switchboard/adapter';
import { type Budget, createBudget } from '@switchboard/budget';
import { CassetteMissError, readCassette, recordCassette, replayCassette } from '@switchboard/cassette';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';

const KEY = 'sk-fit-cassette-0123456789abcdef';
const MODEL = 'primary-flash';
const dir = mkdtempSync(join(tmpdir(), 'switchboard-cassette-fit-'));
let cassettes = 0;

function nextCassette(): string {
  cassettes += 1;
  return join(dir, `fit-${cassettes}.jsonl`);
}

afterEach(closeTestEmulators);

/** A budget where a call's worst case is its max_tokens in USD (prompts free, $1 an output token). */
function dollarPerToken(limitUsd: number, fit: boolean): Budget {
  return createBudget({
    scope: { name: 'fit-through-cassette', limitUsd },
    maxPricesOf: () => ({ cacheHitPerM: 0, inputPerM: 0, outputPerM: 1_000_000 }),
    ...(fit ? { fitMaxTokens: { minTokens: 3 } } : {}),
    onWarning: () => {},
  });
}

const ask = (content: string, maxTokens: number): CompleteRequest => ({
  model: MODEL,
  messages: [{ role: 'user', content }],
  maxTokens,
});

/** What each call of the session ended with: its records (times left out), or its refusal and message. */
type Outcome =
  | { readonly records: Omit<CallRecord, 'at' | 'durationMs' | 'firstDeltaMs'>[] }
  | { readonly refused: string; readonly message: string };

/** Plain and streamed calls capped at 30 tokens until the budget refuses one (at most 6). */
async function session(transport: ChatTransport, budget: Budget): Promise<Outcome[]> {
  const client = new ChatAdapter(transport, { observers: [budget] });
  const outcomes: Outcome[] = [];
  const timeless = (calls: readonly CallRecord[]) =>
    calls.map(({ at, durationMs, firstDeltaMs, callId, ...call }) => call);
  for (let index = 0; index < 6; index += 1) {
    const request = ask(`Write call ${index} out in full, at length`, 30);
    try {
      if (index % 2 === 1) {
        const stream = client.stream(request);
        for await (const _delta of stream) {
          // Read to its end.
        }
        outcomes.push({ records: timeless((await stream.response).calls) });
      } else {
        outcomes.push({ records: timeless((await client.complete(request)).calls) });
      }
    } catch (error) {
      const { kind, message } = error as { kind: string; message: string };
      outcomes.push({ refused: kind, message });
      break;
    }
  }
  await budget.idle();
  return outcomes;
}

const SHORT = ask('One short line, please', 30);

/** One call recorded through the emulator under a $12 budget: fitted from 30 to 12 tokens. */
async function recordedAt12() {
  const emulator = await startTestEmulator({ key: KEY });
  const path = nextCassette();
  const live = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 1 });
  const recorder = new ChatAdapter(recordCassette(path, live, { apiKey: KEY }), {
    observers: [dollarPerToken(12, true)],
  });
  const response = await recorder.complete(SHORT);
  return { emulator, path, live, response };
}

describe('fitMaxTokens through a cassette', () => {
  it('records the calls with the caps the budget lowered, and replays them the same with the same budget', async () => {
    const emulator = await startTestEmulator({ key: KEY });
    const path = nextCassette();
    const live = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 1 });
    const recorded = await session(recordCassette(path, live, { apiKey: KEY }), dollarPerToken(40, true));
    await emulator.close();

    const records = recorded.flatMap((outcome) => ('records' in outcome ? outcome.records : []));
    const lowered = records.filter((record) => record.maxTokensLowered != null);
    // The first call fits at 30 ($30 of $40); the next ones are fitted to what is left, then one is refused at its floor.
    expect(records[0]?.maxTokensLowered ?? null).toBeNull();
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    expect(records.some((record) => record.streamed === true && record.maxTokensLowered != null)).toBe(true);
    expect(recorded.at(-1)).toMatchObject({ refused: 'budget' });
    // What the emulator was sent, the cassette keeps: the lowered caps.
    const sent = emulator.requests.map((request) => (request.body as { max_tokens?: unknown }).max_tokens);
    expect(sent).toEqual(records.map((record) => record.maxTokens));
    expect(readCassette(path).entries.map((entry) => entry.request.max_tokens)).toEqual(sent);
    expect(sent.slice(1).every((cap) => typeof cap === 'number' && cap < 30)).toBe(true);

    // Replayed with the same budget: the same caps, the same recordings, the same records and refusal.
    const replayed = await session(replayCassette(path, { apiKey: 'replay' }), dollarPerToken(40, true));
    expect(replayed).toEqual(recorded);
  });

  it("does not answer a call sent with another cap: a budget that lowers it differently misses, and the miss's reservation is given back", async () => {
    const { emulator, path, response } = await recordedAt12();
    expect(response.calls[0]?.maxTokensLowered).toEqual({ from: 30, to: 12 });
    expect(readCassette(path).entries[0]?.request.max_tokens).toBe(12);
    await emulator.close();

    // The same request under a budget with room for the whole cap: sent with 30, no recording has it.
    const roomy = dollarPerToken(100, true);
    const replayer = new ChatAdapter(replayCassette(path, { apiKey: 'replay' }), { observers: [roomy] });
    const miss = await replayer.complete(SHORT).catch((error: unknown) => error);
    expect(miss).toBeInstanceOf(CassetteMissError);
    expect((miss as CassetteMissError).differences.join('\n')).toMatch(/max_tokens/);
    await roomy.idle();
    const [usage] = await roomy.usage();
    expect(usage).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 0, inFlight: 0 });

    // Lowered to 12 again (a budget of $12): the recording answers.
    const tight = dollarPerToken(12, true);
    const again = await new ChatAdapter(replayCassette(path, { apiKey: 'replay' }), {
      observers: [tight],
    }).complete(SHORT);
    expect(again.content).toBe(response.content);
    expect(again.calls[0]?.maxTokensLowered).toEqual({ from: 30, to: 12 });
    await Promise.all([roomy.close(), tight.close()]);
  });

  it('sends a miss in passthrough mode on with the attempt its budget already let through, at the lowered cap', async () => {
    const { emulator, path, live } = await recordedAt12();

    // Room for 20 tokens: lowered to 20, which no recording has; the miss goes to the emulator, appended.
    const budget = dollarPerToken(20, true);
    const replayer = new ChatAdapter(
      replayCassette(path, { apiKey: KEY, mode: 'passthrough', transport: live }),
      { observers: [budget] },
    );
    const response = await replayer.complete(SHORT);
    expect(response.calls[0]).toMatchObject({ attempts: 1, maxTokensLowered: { from: 30, to: 20 } });
    const sent = emulator.requests.map((request) => (request.body as { max_tokens?: unknown }).max_tokens);
    expect(sent).toEqual([12, 20]);
    expect(readCassette(path).entries.map((entry) => entry.request.max_tokens)).toEqual([12, 20]);
    // One reservation for the one attempt, settled at the call's cost.
    await budget.idle();
    const [usage] = await budget.usage();
    expect(usage).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
    expect(usage?.spentUsd).toBeCloseTo(response.calls[0]?.usage?.completion_tokens ?? Number.NaN, 9);
    await budget.close();
  });
});
