import { describe, expect, it } from 'vitest';
import { type AttemptContext, AttemptTracker } from './attempt-tracker.js';
import type { AttemptHandle, AttemptOutcome, CallObserver } from './call-observer.js';

const context: AttemptContext = {
  model: 'primary-flash',
  role: null,
  messages: [],
  tools: undefined,
  maxTokens: null,
  signal: undefined,
};

/** An observer whose handles record how they were ended; `answer` decides how it hands them over. */
function observer(
  name: string,
  ended: Array<[string, AttemptOutcome]>,
  answer: (handle: AttemptHandle) => AttemptHandle | Promise<AttemptHandle>,
): CallObserver {
  return { beforeAttempt: () => answer({ end: (outcome) => void ended.push([name, outcome]) }) };
}

describe('AttemptTracker.before', () => {
  it('stays synchronous while every observer hands its handle back at once', () => {
    const ended: Array<[string, AttemptOutcome]> = [];
    const tracker = new AttemptTracker(context, [
      observer('a', ended, (handle) => handle),
      { afterCall: () => {} },
      observer('b', ended, (handle) => handle),
    ]);
    expect(tracker.before(1)).toBeUndefined();
    expect(tracker.attempts).toBe(1);
    const error = new Error('reset');
    tracker.after(1, error, false);
    expect(ended).toEqual([
      ['a', { record: null, error, mayHaveBeenBilled: false, settlement: 'none' }],
      ['b', { record: null, error, mayHaveBeenBilled: false, settlement: 'none' }],
    ]);
  });

  it('waits from the first observer that answers with a promise, and keeps every handle in order', async () => {
    const ended: Array<[string, AttemptOutcome]> = [];
    const tracker = new AttemptTracker(context, [
      observer('sync', ended, (handle) => handle),
      observer('async', ended, async (handle) => handle),
      observer('sync-after', ended, (handle) => handle),
    ]);
    const waiting = tracker.before(1);
    expect(waiting).toBeInstanceOf(Promise);
    expect(tracker.attempts).toBe(0);
    await waiting;
    expect(tracker.attempts).toBe(1);
    const error = new Error('cut');
    tracker.after(1, error, true);
    expect(ended.map(([name]) => name)).toEqual(['sync', 'async', 'sync-after']);
  });

  it('rejects (never throws) when an observer throws at once, giving back the handles already taken', async () => {
    const ended: Array<[string, AttemptOutcome]> = [];
    const refusal = new Error('over budget');
    const tracker = new AttemptTracker(context, [
      observer('taken', ended, (handle) => handle),
      {
        beforeAttempt: () => {
          throw refusal;
        },
      },
    ]);
    const waiting = tracker.before(1);
    await expect(waiting).rejects.toBe(refusal);
    expect(tracker.attempts).toBe(0);
    expect(ended).toEqual([
      ['taken', { record: null, error: refusal, mayHaveBeenBilled: false, settlement: 'none' }],
    ]);
  });

  it('rejects when a later observer refuses after an asynchronous one, giving back both handles', async () => {
    const ended: Array<[string, AttemptOutcome]> = [];
    const tracker = new AttemptTracker(context, [
      observer('async', ended, async (handle) => handle),
      observer('sync', ended, (handle) => handle),
      { beforeAttempt: async () => Promise.reject('no slot') },
    ]);
    const error = await Promise.resolve(tracker.before(1)).catch((caught: unknown) => caught);
    expect(error).toBe('no slot');
    expect(tracker.attempts).toBe(0);
    expect(ended.map(([name, outcome]) => [name, outcome.mayHaveBeenBilled])).toEqual([
      ['async', false],
      ['sync', false],
    ]);
    expect(ended[0]?.[1].error?.message).toMatch(/non-Error value \(string\)/);
  });
});
