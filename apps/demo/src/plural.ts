import { formatCount } from './format.js';

/** `1 call`, `2 calls`, `1,024 calls`: a count with its noun in the right number. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(count)} ${count === 1 ? noun : nouns}`;
}
