import type { ChatTransport, TransportRequest } from '../../src/index.js';

/**
 * A raw transport that answers with the given replies in call order (copies
 * share the queue) and records every request it makes.
 */
export class RawTransport implements ChatTransport {
  readonly requests: TransportRequest[] = [];
  readonly attempts: number[] = [];
  readonly copies: RawTransport[] = [];

  constructor(
    protected readonly replies: unknown[],
    readonly maxAttempts = 3,
  ) {}

  async completeChatRaw(request: TransportRequest): Promise<unknown> {
    this.requests.push(request);
    if (this.replies.length === 0) throw new Error('RawTransport ran out of replies');
    const reply = this.replies.shift();
    if (reply instanceof Error) throw reply;
    return reply;
  }

  async completeChat(): Promise<Record<string, unknown>> {
    throw new Error('the raw path should be used');
  }

  withMaxAttempts(attempts: number): RawTransport {
    const copy = new RawTransport(this.replies, attempts);
    this.copies.push(copy);
    return copy;
  }
}

/** A transport with only the plain operation, like a test stub. */
export class PlainTransport implements ChatTransport {
  readonly requests: TransportRequest[] = [];

  constructor(private readonly messages: Record<string, unknown>[]) {}

  async completeChat(request: TransportRequest): Promise<Record<string, unknown>> {
    this.requests.push(request);
    const message = this.messages[this.requests.length - 1];
    if (!message) throw new Error('PlainTransport ran out of messages');
    return message;
  }
}

/** A whole reply payload with `message` as its first choice (none when undefined). */
export const reply = (message: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) => ({
  id: 'reply',
  choices: message === undefined ? [] : [{ index: 0, message, finish_reason: 'stop', logprobs: null }],
  ...extra,
});

/** A reply whose message is an assistant answer, with `usage` when given. */
export const answer = (content: string | null, usage?: Record<string, unknown>) =>
  reply({ role: 'assistant', content }, usage ? { usage } : {});

/**
 * A transport that reports its attempts, like `OpenAITransport`: each attempt
 * runs the request's hooks and takes the next outcome; an Error is retried
 * until `maxAttempts`, a payload is the reply. Copies share the queue.
 */
export class AttemptingTransport extends RawTransport {
  readonly reportsAttempts = true;

  override async completeChatRaw(request: TransportRequest): Promise<unknown> {
    this.requests.push(request);
    for (let attempt = 1; ; attempt += 1) {
      await request.beforeAttempt?.(attempt);
      const outcome = this.replies.shift();
      if (!(outcome instanceof Error)) {
        request.afterAttempt?.(attempt, null);
        return outcome;
      }
      request.afterAttempt?.(attempt, outcome);
      if (attempt >= this.maxAttempts) throw outcome;
    }
  }

  override withMaxAttempts(attempts: number): AttemptingTransport {
    const copy = new AttemptingTransport(this.replies, attempts);
    this.copies.push(copy);
    return copy;
  }
}
