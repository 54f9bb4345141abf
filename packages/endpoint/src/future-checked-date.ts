const DAY_MS = 86_400_000;

/**
 * Why a price's check date (`YYYY-MM-DD`, UTC) cannot be right because it has not come yet, or
 * null: a date after tomorrow (UTC; the day after today leaves room for the zones ahead of UTC).
 * A price cannot have been checked later than today, and an entry dated ahead would never go stale.
 */
export function futureCheckedDate(date: string, now: number = Date.now()): string | null {
  const latest = new Date(now + DAY_MS).toISOString().slice(0, 10);
  if (date <= latest) return null;
  const today = new Date(now).toISOString().slice(0, 10);
  return `${date} is in the future (today is ${today}, UTC): a price cannot have been checked later than today, and a date ahead would never go stale`;
}
