import { describe, expect, it } from 'vitest';
import { FaultSchedule } from './fault-schedule.js';

const target = (number: number, path = '/chat/completions', models: string[] = ['primary-flash']) => ({
  number,
  path,
  route: path.replace(/^\/api\/v1/, ''),
  models,
});

describe('FaultSchedule', () => {
  describe('matching', () => {
    it('applies a rule without selectors to every request', () => {
      const schedule = new FaultSchedule([{ status: 500 }]);
      expect(schedule.take(target(1))?.status).toBe(500);
      expect(schedule.take(target(2))?.status).toBe(500);
    });

    it('applies a rule only to the listed request numbers', () => {
      const schedule = new FaultSchedule([{ requests: [2, 4], status: 503 }]);
      expect([1, 2, 3, 4].map((number) => schedule.take(target(number))?.status ?? null)).toEqual([
        null,
        503,
        null,
        503,
      ]);
    });

    it('applies a rule only to its model and its path', () => {
      const schedule = new FaultSchedule([
        { model: 'primary-v4-pro', path: '/chat/completions', status: 500 },
      ]);
      expect(schedule.take(target(1))).toBeNull();
      expect(schedule.take(target(2, '/models', ['primary-v4-pro']))).toBeNull();
      expect(schedule.take(target(3, '/chat/completions', ['primary-v4-pro']))?.status).toBe(500);
    });

    it('uses a rule up only after `times` matching requests', () => {
      const schedule = new FaultSchedule([{ status: 429, times: 2 }]);
      expect([1, 2, 3].map((number) => schedule.take(target(number))?.status ?? null)).toEqual([
        429,
        429,
        null,
      ]);
    });

    it('takes the first matching rule with uses left, in plan order', () => {
      const schedule = new FaultSchedule([{ status: 429, times: 1 }, { status: 500 }]);
      expect(schedule.take(target(1))?.status).toBe(429);
      expect(schedule.take(target(2))?.status).toBe(500);
    });
  });

  describe('validation', () => {
    it('rejects a plan that is not an array', () => {
      expect(() => new FaultSchedule({} as never)).toThrow('faults must be an array of fault rules');
    });

    it('rejects an unknown field, naming it', () => {
      expect(() => new FaultSchedule([{ stauts: 500 } as never])).toThrow(
        "faults[0] has an unknown field 'stauts'",
      );
    });

    it('rejects a rule without an effect', () => {
      expect(() => new FaultSchedule([{ times: 1 }])).toThrow(/faults\[0\] has no effect/);
    });

    it('rejects bad numbers, naming the rule and field', () => {
      expect(() => new FaultSchedule([{ status: 99 }])).toThrow(
        /faults\[0\]\.status must be an integer from 100 to 599/,
      );
      expect(() => new FaultSchedule([{ status: 500 }, { status: 500, times: 0 }])).toThrow(
        /faults\[1\]\.times/,
      );
      expect(() => new FaultSchedule([{ delayMs: -1 }])).toThrow(/faults\[0\]\.delayMs/);
      expect(() => new FaultSchedule([{ requests: [0], reset: true }])).toThrow(/faults\[0\]\.requests/);
    });

    it('rejects fields of the wrong type', () => {
      expect(() => new FaultSchedule([{ reset: 'yes' as never }])).toThrow(
        'faults[0].reset must be a boolean',
      );
      expect(() => new FaultSchedule([{ body: 5 as never }])).toThrow('faults[0].body must be a string');
    });

    it('accepts every effect of the new plans', () => {
      expect(
        () =>
          new FaultSchedule([
            { endlessBody: true, status: 500, trickleMs: 10, trickleBytes: 2 },
            { whitespaceBody: true },
            { keepAliveNewlines: 3, keepAliveMs: 50 },
            { errorInBody: { code: 429, message: 'slow down', raw: 'detail', withChoices: true } },
            { redirect: { status: 308, location: 'http://127.0.0.2:1/chat/completions' } },
            { modelRejected: 'not-exist' },
            { deepErrorBody: 100_000, status: 400 },
            { cutOff: true },
            { cutOffAfterBytes: 0 },
            { status: 429, retryAfter: 2 ** 31 + 1 },
            { status: 429, retryAfter: 'Wed, 21 Oct 2065 07:28:00 GMT' },
          ]),
      ).not.toThrow();
    });

    it('rejects bad values of the new effects, naming the field', () => {
      expect(() => new FaultSchedule([{ modelRejected: 'nope' as never }])).toThrow(
        'faults[0].modelRejected must be one of listing, but-you-passed, not-exist',
      );
      expect(() => new FaultSchedule([{ redirect: { status: 200 as never, location: '/x' } }])).toThrow(
        /faults\[0\]\.redirect\.status/,
      );
      expect(() => new FaultSchedule([{ redirect: {} as never }])).toThrow(/faults\[0\]\.redirect must be/);
      expect(() => new FaultSchedule([{ errorInBody: {} as never }])).toThrow(
        /faults\[0\]\.errorInBody\.code/,
      );
      expect(() => new FaultSchedule([{ errorInBody: { code: 429, withChoices: 1 as never } }])).toThrow(
        /errorInBody\.withChoices must be a boolean/,
      );
      expect(() => new FaultSchedule([{ deepErrorBody: 0 }])).toThrow(/faults\[0\]\.deepErrorBody/);
      expect(() => new FaultSchedule([{ trickleMs: -1 }])).toThrow(/faults\[0\]\.trickleMs/);
      expect(() => new FaultSchedule([{ status: 429, retryAfter: '' }])).toThrow(
        /retryAfter must not be an empty/,
      );
    });
  });
});
