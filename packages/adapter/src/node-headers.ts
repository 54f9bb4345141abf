import type { ReplyHeaders } from './wire-reply.js';

// Headers Node keeps the first of when a reply repeats them (its `IncomingMessage.headers`); the others it joins.
const FIRST_ONLY: ReadonlySet<string> = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * The value of the header `name` (lower case) among a reply's raw headers (Node's `rawHeaders`:
 * name, value, name, value… as received), as Node's `headers` record gives it: the first of a
 * header Node keeps once, else every value joined with `, `; null when absent.
 */
export function rawHeader(raw: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let index = 0; index < raw.length; index += 2) {
    const key = raw[index] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const item = raw[index + 1] as string;
    if (value === null) {
      if (FIRST_ONLY.has(name)) return item;
      value = item;
    } else value = `${value}, ${item}`;
  }
  return value;
}

/**
 * A `node:http` reply's headers, read as a fetch `Headers` is: by name in any case, a
 * repeated header's values joined with `, `, and listed as sorted lower-case pairs.
 * Read in place from the reply's raw headers: Node 22 and later build their `headers`
 * record only when it is first read (about 15 µs a reply), and a call reads two or three.
 */
export class NodeHeaders implements ReplyHeaders {
  readonly #raw: readonly string[];

  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    return rawHeader(this.#raw, name.toLowerCase());
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    const names = new Set<string>();
    for (let index = 0; index < this.#raw.length; index += 2)
      names.add((this.#raw[index] as string).toLowerCase());
    for (const name of [...names].sort()) yield [name, rawHeader(this.#raw, name) as string];
  }
}
