/** Keys come from untrusted files and callers: past this length, no edit distance is computed. */
const MAX_COMPARED_LENGTH = 64;

/**
 * Edit distance (Levenshtein) between `a` and `b`, capped: `Infinity` when their lengths
 * differ by more than 2 or `a` is longer than 64 characters (a long or hostile key costs nothing).
 */
function cappedDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > MAX_COMPARED_LENGTH) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? Number.POSITIVE_INFINITY;
}

/**
 * The name in `known` nearest to `name`, for a "did you mean" hint: case is ignored on
 * both sides, and a name is near when at most 2 edits away (1 for names of 4 characters
 * or fewer); the first of equally near names wins; null when none is near. Every
 * Switchboard package that refuses or warns about an unknown key (the budget's options,
 * the endpoint's `switchboard.toml` and `resolveChatEndpoint` options) suggests with it,
 * so a typo is answered the same way everywhere.
 */
export function nearestName(name: string, known: readonly string[]): string | null {
  const lowered = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = lowered.length <= 4 ? 1 : 2;
  for (const candidate of known) {
    const d = cappedDistance(lowered, candidate.toLowerCase());
    if (d <= bestDistance && (best === null || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
