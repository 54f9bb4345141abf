/** Why a store could not answer, in words, free of any password or URL userinfo. */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
  /** True when the store is misconfigured (e.g. a Cluster node given as a url): no fallback helps. */
  readonly configuration: boolean;
  /**
   * True when the store surely changed nothing (the command never reached it, or its
   * transaction was rolled back): a failed acquisition then owes no release.
   */
  readonly ranNothing: boolean;
  /**
   * True when the server answered but gave up waiting (a row lock held elsewhere, a statement past its
   * timeout): a busy store, not an unreachable one, so the call ends as a timeout does.
   */
  readonly timedOut: boolean;

  constructor(message: string, configuration = false, ranNothing = false, timedOut = false) {
    super(message);
    this.configuration = configuration;
    this.ranNothing = ranNothing;
    this.timedOut = timedOut;
  }
}

/** `user:password@` removed from any `scheme://` address in a text. */
export function withoutUserinfo(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
}

/** The connection errors every store meets, in words; `server` is what should be listening there. */
export function connectionErrors(server: string): Readonly<Record<string, string>> {
  return {
    ECONNREFUSED: `connection refused (ECONNREFUSED): is ${server} running there?`,
    ECONNRESET: 'connection reset (ECONNRESET)',
    ENOTFOUND: 'host not found (ENOTFOUND)',
    EAI_AGAIN: 'host name lookup failed (EAI_AGAIN)',
    ETIMEDOUT: 'connection timed out (ETIMEDOUT)',
    EHOSTUNREACH: 'host unreachable (EHOSTUNREACH)',
    EPIPE: 'connection broken (EPIPE)',
  };
}

const CODES = connectionErrors('redis-server');

/**
 * What went wrong with a Redis command, for `where` (`host:port`): the cause in
 * words (ECONNREFUSED, NOAUTH, a timeout…), never the client's internals (which
 * may carry the AUTH command's arguments).
 */
export function storeErrorOf(error: unknown, where: string, lastConnectionError?: unknown): StoreError {
  if (error instanceof StoreError) return error;
  let message = error instanceof Error ? error.message : String(error);
  let code = codeOf(error);
  // ioredis reports a command given up while reconnecting without the reason: the connection's last error says it.
  if (
    code === undefined &&
    /max retries per request|Connection is closed|Stream isn't writeable/i.test(message)
  ) {
    code = codeOf(lastConnectionError);
    if (code === undefined && lastConnectionError instanceof Error) message = lastConnectionError.message;
  }
  if (code !== undefined && CODES[code]) return new StoreError(`Redis at ${where}: ${CODES[code]}`);
  if (/^MOVED |^ASK /.test(message)) {
    return new StoreError(
      `Redis at ${where} is a node of a Redis Cluster (it answered MOVED): pass an ioredis Cluster client as the store's client instead of a url`,
      true,
    );
  }
  if (/NOAUTH|WRONGPASS|invalid (username-)?password|AUTH .*failed/i.test(message)) {
    return new StoreError(
      `Redis at ${where}: authentication failed (${/WRONGPASS/.test(message) ? 'WRONGPASS' : 'NOAUTH'}): check the user and password of the url or client`,
    );
  }
  if (/NOPERM|can't run this command/.test(message)) {
    return new StoreError(
      `Redis at ${where}: the ACL user may not run a command of the budget's scripts (NOPERM): allow +@hash +@sortedset +time +pexpire +evalsha +eval +info on the budget's key prefix`,
    );
  }
  if (/Connection is closed|Stream isn't writeable|connection closed/i.test(message)) {
    return new StoreError(`Redis at ${where}: not connected (the connection is closed or reconnecting)`);
  }
  return new StoreError(`Redis at ${where}: ${withoutUserinfo(message).slice(0, 300)}`);
}

/** The first string `code` on an error or the causes it wraps (a few deep): a Node or driver error code. */
export function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
