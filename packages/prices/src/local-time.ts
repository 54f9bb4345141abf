const MINUTE = 60_000;
// Every UTC offset in use is a whole number of quarter hours and every change of
// offset (DST or otherwise) falls on a quarter hour of UTC, so one offset per
// quarter hour is exact and lets a process price millions of calls with a handful
// of Intl look-ups.
const QUARTER_HOUR = 900_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
// Unbounded on purpose: a year of reply times is 35,040 quarter hours, about 2 MB.
const offsets = new Map<string, Map<number, number>>();

function offsetOf(timeZone: string, time: number): number {
  const quarter = Math.floor(time / QUARTER_HOUR);
  let cache = offsets.get(timeZone);
  if (!cache) {
    cache = new Map();
    offsets.set(timeZone, cache);
  }
  let offset = cache.get(quarter);
  if (offset === undefined) {
    let formatter = formatters.get(timeZone);
    if (!formatter) {
      // Throws a RangeError for a timezone Intl does not know.
      formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
      formatters.set(timeZone, formatter);
    }
    // '3/29/2026, GMT+02:00' ('GMT+00:00' for UTC).
    const [, sign, hours, minutes] =
      /GMT([+-])(\d\d):(\d\d)/.exec(formatter.format(quarter * QUARTER_HOUR)) ?? [];
    offset = (sign === '-' ? -MINUTE : MINUTE) * (Number(hours ?? 0) * 60 + Number(minutes ?? 0));
    cache.set(quarter, offset);
  }
  return offset;
}

/** Wall-clock time of `time` (epoch ms) in `timeZone`, as whole minutes since 1970-01-01 00:00 there. */
export function localMinuteOf(timeZone: string, time: number): number {
  return Math.floor((time + offsetOf(timeZone, time)) / MINUTE);
}
