/**
 * The mark of a call record that is frozen plain data all the way down, so that what it holds
 * can never change: every field a primitive or a frozen copy the adapter made. A journal makes
 * the line of such a record off the call path (`CallJournal` of `@switchboard/telemetry`), and
 * any other at once. A `Symbol.for` key, so a reader needs no import of this package; the
 * property is not enumerable, so JSON, spreads, `Object.keys` and equality never see it, and a
 * copy (`{ ...record }`) is unmarked.
 */
const UNCHANGEABLE = Symbol.for('@switchboard/adapter.unchangeable-record');

// Not enumerable, not writable, not configurable: made once, not per record.
const MARK: PropertyDescriptor = Object.freeze({ value: true });

/** Marks `record` (not yet frozen) as unchangeable: only for a record that is plain data all the way down. */
export function markUnchangeable(record: object): void {
  Object.defineProperty(record, UNCHANGEABLE, MARK);
}
