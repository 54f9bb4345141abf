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

describe('AttemptTracker.recordFacts budgets', () => {
  const scope = (name: string, limitUsd: number | null) => Object.freeze({ scope: name, limitUsd });
  const charging = (budgets: unknown): CallObserver => ({
    beforeAttempt: () => ({ end: () => {}, budgets }) as unknown as AttemptHandle,
  });
  const budgetsOf = (observers: CallObserver[], attempts = 1) => {
    const tracker = new AttemptTracker({ ...context, callId: 'c' }, observers);
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      tracker.before(attempt);
      tracker.after(attempt, attempt < attempts ? new Error('reset') : null, true);
    }
    return tracker.recordFacts().budgets;
  };

  it("holds one handle's frozen, well-formed list as it is, over every attempt", () => {
    const list = Object.freeze([scope('org', 10), scope('org/team', null)]);
    expect(budgetsOf([charging(list)], 2)).toBe(list);
  });

  it('merges the lists of two handles, each scope once, the first limit kept in place', () => {
    const first = Object.freeze([scope('org', 10)]);
    const second = Object.freeze([scope('org', 20), scope('other', 5)]);
    const budgets = budgetsOf([charging(first), charging(second)]);
    expect(budgets).toEqual([
      { scope: 'org', limitUsd: 20 },
      { scope: 'other', limitUsd: 5 },
    ]);
    expect(Object.isFrozen(budgets)).toBe(true);
  });

  it('copies a list it cannot keep: not frozen, an entry with more keys, a repeated scope, a bad limit', () => {
    const extra = Object.freeze({ scope: 'org', limitUsd: 1, secret: 'x' });
    for (const list of [
      [scope('org', 1)],
      Object.freeze([extra]),
      Object.freeze([scope('org', 1), scope('org', 2)]),
      Object.freeze([scope('org', 1), Object.freeze({ scope: 'bad', limitUsd: Number.NaN })]),
    ]) {
      const budgets = budgetsOf([charging(list)]);
      expect(budgets).not.toBe(list);
      expect(Object.isFrozen(budgets)).toBe(true);
      for (const entry of budgets ?? []) expect(Object.keys(entry)).toEqual(['scope', 'limitUsd']);
    }
  });
});
