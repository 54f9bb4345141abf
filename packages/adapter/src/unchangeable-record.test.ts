import { describe, expect, it } from 'vitest';
import { answer, RawTransport } from '../test/support/raw-transport.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { copyUsage, isWholeCopy } from './copy-usage.js';

// Read by a journal (`@switchboard/telemetry`) through the same `Symbol.for` key.
const UNCHANGEABLE = Symbol.for('@switchboard/adapter.unchangeable-record');
const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

/** A usage whose `completion_tokens_details` nests `levels` objects deep. */
function deepUsage(levels: number): Record<string, unknown> {
  let nested: Record<string, unknown> = { reasoning_tokens: 1 };
  for (let level = 0; level < levels; level += 1) nested = { nested };
  return { completion_tokens: 5, completion_tokens_details: nested };
}

async function recordOf(usage: Record<string, unknown> | undefined) {
  const adapter = new ChatAdapter(new RawTransport([answer('a', usage)]));
  const response = await adapter.complete(request);
  const record = response.calls[0];
  if (record === undefined) throw new Error('no record');
  return record;
}

const isMarked = (record: object) => (record as Record<symbol, unknown>)[UNCHANGEABLE] === true;

describe('the mark of an unchangeable call record', () => {
  it('marks a record that is plain data all the way down, unseen by JSON, keys, spreads and equality', async () => {
    const record = await recordOf({ prompt_tokens: 3, completion_tokens: 5, prompt_tokens_details: {} });
    expect(isMarked(record)).toBe(true);
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.keys(record)).not.toContain(UNCHANGEABLE);
    expect(JSON.stringify(record)).toBe(JSON.stringify({ ...record }));
    expect(isMarked({ ...record })).toBe(false);
    expect(record).toEqual({ ...record });
    expect(record).toStrictEqual({ ...record });
  });

  it('marks a record without a usage', async () => {
    expect(isMarked(await recordOf(undefined))).toBe(true);
  });

  it('does not mark a record whose usage nests deeper than the copy goes (kept as it came)', async () => {
    expect(isMarked(await recordOf(deepUsage(3)))).toBe(true);
    expect(isMarked(await recordOf(deepUsage(12)))).toBe(false);
  });

  it('tells a whole copy of a usage from one that kept a part as it was', () => {
    expect(isWholeCopy(copyUsage(deepUsage(3)))).toBe(true);
    const partial = copyUsage(deepUsage(12));
    expect(isWholeCopy(partial)).toBe(false);
    // The next copy starts afresh.
    expect(isWholeCopy(copyUsage({ total_tokens: 1, details: [{ a: 1 }] }))).toBe(true);
  });
});
