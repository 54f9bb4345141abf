import type { IncomingHttpHeaders } from 'node:http';
import type { ReplyHeaders } from './wire-reply.js';

/**
 * A `node:http` reply's headers, read as a fetch `Headers` is: by name in any case, a
 * repeated header's values joined with `, `, and listed as sorted lower-case pairs.
 * Nothing is copied: lookups read Node's own record.
 */
export class NodeHeaders implements ReplyHeaders {
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#headers).sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }
}
