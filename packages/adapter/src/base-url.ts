// Shared through the global symbol registry, so two copies of this package recognise each other's errors.
const MARKER = Symbol.for('switchboard.adapter.BaseUrlError');

/** Options of {@link parseBaseUrl}. */
export interface ParseBaseUrlOptions {
  /** What the address is called in messages: `baseUrl`, `models.chat_base_url`, `PRIMARY_BASE_URL`...; default `baseUrl`. */
  name?: string;
}

/**
 * A base address that is not an absolute http(s) URL without credentials, query
 * or fragment. The message is `<name>: <reason>`; it never contains a password.
 */
export class BaseUrlError extends TypeError {
  /** What the address is called: the `name` given to {@link parseBaseUrl}. */
  readonly field: string;
  /** The message without the leading `<name>: `, e.g. `expected an absolute http(s) URL, got "ftp://x"`. */
  readonly reason: string;

  constructor(field: string, reason: string) {
    super(`${field}: ${reason}`);
    this.name = 'BaseUrlError';
    this.field = field;
    this.reason = reason;
  }

  /** Whether `error` is a BaseUrlError, also when it comes from another copy of this package. */
  static isInstance(error: unknown): error is BaseUrlError {
    return error instanceof Error && MARKER in error;
  }
}

Object.defineProperty(BaseUrlError.prototype, MARKER, { value: true });

const EXPECTED = 'expected an absolute http(s) URL';

// A key pasted into the address's field by mistake: one run of 20 or more letters, digits, `_` or `-`
// with no `.`, `/` or `:` anywhere (no host, path or scheme), so no address is ever taken for one.
const KEY_SHAPED = /^[\w-]{20,}$/;
// What is echoed of a long value that is shown: enough to recognise it, never a whole pasted file.
const SHOWN_CHARS = 200;

// A value that may carry `user:password@`, or that looks like a key, is never echoed, even when it does not parse.
function shown(text: string): string {
  if (text.includes('@')) return 'a value containing "@" (not shown: it may hold credentials)';
  if (KEY_SHAPED.test(text)) {
    return `a value of ${text.length} characters with no ".", "/" or ":" (not shown: it looks like a key pasted into the address's place)`;
  }
  if (text.length > SHOWN_CHARS) {
    return `${JSON.stringify(text.slice(0, SHOWN_CHARS))}… (${text.length} characters)`;
  }
  return JSON.stringify(text);
}

/**
 * The one rule for base addresses (of the transport, the configuration and the
 * environment): an absolute `http:`/`https:` URL with a host, no credentials
 * (`user:password@`), no query and no fragment. Returns it normalised, as the
 * URL parser writes it (scheme and host lowercased, default port dropped),
 * surrounding whitespace and trailing `/` removed.
 *
 * @throws {BaseUrlError} naming `options.name` and what was expected, e.g.
 *   `baseUrl: expected an absolute http(s) URL, got "ftp://x"`.
 */
export function parseBaseUrl(value: unknown, options: ParseBaseUrlOptions = {}): string {
  const name = options.name ?? 'baseUrl';
  if (typeof value !== 'string') {
    throw new BaseUrlError(name, `${EXPECTED}, got ${value === null ? 'null' : typeof value}`);
  }
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BaseUrlError(name, `${EXPECTED}, got ${shown(text)}`);
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses such an address at call time, and the key belongs in its own variable.
    throw new BaseUrlError(name, `${EXPECTED} without credentials (user:password@), got one with them`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new BaseUrlError(name, `${EXPECTED}, got ${shown(text)}`);
  }
  // Paths are appended to the address, so a query or fragment would end up in the wrong place (and may hold a key).
  if (text.includes('?') || text.includes('#')) {
    throw new BaseUrlError(
      name,
      `${EXPECTED} without a query or fragment, got ${shown(`${url.origin}${url.pathname}`)} with one`,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
