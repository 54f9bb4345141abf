import { describe, expect, it } from 'vitest';
import { RECORDS } from './__fixtures__/call-records.js';
import { journalEndpoint, journalLineOf, journalLineText } from './journal-line.js';

const ENDPOINT = journalEndpoint({
  provider: 'gateway',
  baseUrl: 'https://gateway.example/api/v1',
  thinking: true,
});

describe('journalLineText', () => {
  it.each(RECORDS.map((record) => [record.error?.kind ?? 'ok', record] as const))(
    'reads back as journalLineOf (%s)',
    (_, record) => {
      expect(JSON.parse(journalLineText(record, JSON.stringify(ENDPOINT), undefined))).toEqual(
        journalLineOf(record, ENDPOINT, undefined),
      );
    },
  );

  it('adds a null role when the record has none, and extra when given', () => {
    const { role: _, ...withoutRole } = RECORDS[0] ?? { role: null };
    const line = JSON.parse(
      journalLineText(withoutRole as never, 'null', { json: JSON.stringify({ note: 'n' }) }),
    );
    expect(line).toMatchObject({ role: null, endpoint: null, extra: { note: 'n' } });
    expect(line).toEqual(journalLineOf(withoutRole as never, null, { note: 'n' }));
  });
});
