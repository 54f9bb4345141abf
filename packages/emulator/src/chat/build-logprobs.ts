import { tokenSpans } from '../tokens/tokenize.js';
import { hashText } from './seeded-random.js';

/** One alternative token and its log probability. */
interface TopLogprob {
  readonly token: string;
  readonly logprob: number;
  readonly bytes: number[];
}

/** One token of the content with its log probability and the most likely alternatives. */
interface TokenLogprob extends TopLogprob {
  readonly top_logprobs: TopLogprob[];
}

/** The `logprobs` object of a choice: one entry per content token, in order. */
export interface ChoiceLogprobs {
  readonly content: TokenLogprob[];
}

const ALTERNATIVES = ['the', 'a', 'and', 'of', 'to', 'in', 'is', 'it', 'that', 'on', 'for', 'as'];

/**
 * Log probabilities for `content`. Its tokens (see `tokenize`) carry the
 * whitespace before them, so the tokens joined give the content back. Each
 * logprob is negative and a function of the token and its position only;
 * `top_logprobs` lists the token itself first, then `topLogprobs - 1`
 * less likely alternatives.
 */
export function buildLogprobs(content: string, topLogprobs: number): ChoiceLogprobs {
  let previousEnd = 0;
  const entries = tokenSpans(content).map((span, index) => {
    const token = content.slice(previousEnd, span.end);
    previousEnd = span.end;
    const logprob = -round(0.01 + (Number.parseInt(hashText(`${index}:${token}`), 16) % 2000) / 1000);
    const top: TopLogprob[] = [];
    for (let rank = 0; rank < topLogprobs; rank += 1) {
      if (rank === 0) {
        top.push(entry(token, logprob));
        continue;
      }
      const word = ALTERNATIVES[(index + rank) % ALTERNATIVES.length] ?? 'the';
      const alternative = ` ${word}` === token ? ` ${word}${rank}` : ` ${word}`;
      top.push(entry(alternative, round(logprob - 0.75 * rank)));
    }
    return { ...entry(token, logprob), top_logprobs: top };
  });
  return { content: entries };
}

function entry(token: string, logprob: number): TopLogprob {
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

function round(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
