import { createRequire } from 'node:module';
import { format as formatText, inspect } from 'node:util';
import type * as Ioredis from 'ioredis';

let loaded: typeof Ioredis | undefined;
const require = createRequire(import.meta.url);

/**
 * The `ioredis` module (an optional peer dependency, 5 or 6), loaded the first time a Redis
 * store connects by URL: importing this package (and a memory store) never loads it.
 * Synchronous, because a store is made in a constructor; `ioredis` is a CommonJS package,
 * so `require` loads it from either build.
 */
export function loadIoredis(): typeof Ioredis {
  if (loaded === undefined) {
    try {
      loaded = require('ioredis') as typeof Ioredis;
    } catch (error) {
      throw new Error(
        'RedisBudgetStore with a url needs the `ioredis` package, 5 or 6 (an optional peer dependency of @switchboard/budget): npm install ioredis',
        { cause: error },
      );
    }
  }
  return loaded;
}

/** What ioredis's debug output must not show, and what shows instead. */
const hidden = new Map<string, string>();
/** Raw forms (long enough not to be mistaken for other text), for `%s` and `%j`. */
const hiddenRaw = new Set<string>();
let patched = false;

/** ioredis's debug wrapper cuts an argument's text (an array joined by commas) past this length. */
const IOREDIS_MAX_ARGUMENT_LENGTH = 200;

type Formatter = (this: unknown, value: unknown) => string;

/**
 * Keeps a Redis password out of ioredis's debug output (`DEBUG=ioredis:*`), which logs
 * every command's arguments, `AUTH`'s too: `write command[…]: 0 -> auth([ '<password>' ])`.
 * The `debug` module that ioredis loads formats those arguments with `%o`; its
 * formatters (`%o`, `%O`, and `%s`, `%j` for a password of 8 characters or more) are
 * wrapped once, process-wide, to print `'***'` where the password (or the cut form
 * ioredis makes of a long one) would be. Only the copy of `debug` that this package's
 * `ioredis` resolves is reached: a caller's client from another copy of ioredis is not.
 */
export function hideFromIoredisDebug(username: unknown, password: unknown): void {
  if (typeof password !== 'string' || password === '') return;
  const user = typeof username === 'string' && username !== '' ? username : null;
  // The AUTH command's arguments: [password] or [username, password]; ioredis joins them by commas to
  // measure them, and past 200 characters prints the joined text cut, instead of the array.
  // ioredis 6 (RESP3) sends them with HELLO instead: [3, 'AUTH', username or 'default', password].
  const joinedForms = [
    user === null ? password : `${user},${password}`,
    `3,AUTH,${user ?? 'default'},${password}`,
  ];
  for (const joined of joinedForms) {
    if (joined.length <= IOREDIS_MAX_ARGUMENT_LENGTH) continue;
    const cut = `${joined.slice(0, IOREDIS_MAX_ARGUMENT_LENGTH)} ... <REDACTED full-length="${joined.length}">`;
    hidden.set(inspect(cut), inspect('***'));
  }
  hidden.set(inspect(password), inspect('***'));
  if (password.length >= 8) hiddenRaw.add(password);
  patchDebug();
}

function patchDebug(): void {
  if (patched) return;
  patched = true;
  let formatters: Record<string, Formatter> | undefined;
  try {
    // The `debug` that ioredis itself requires (its dependency, resolved from its own folder).
    const fromIoredis = createRequire(require.resolve('ioredis'));
    formatters = (fromIoredis('debug') as { formatters?: Record<string, Formatter> }).formatters;
  } catch {
    return;
  }
  if (formatters === undefined) return;
  for (const letter of ['o', 'O']) {
    const original = formatters[letter];
    if (typeof original !== 'function') continue;
    formatters[letter] = function (this: unknown, value: unknown): string {
      let text = original.call(this, value);
      for (const [secret, shown] of hidden) if (text.includes(secret)) text = text.split(secret).join(shown);
      return text;
    };
  }
  for (const letter of ['s', 'j']) {
    const original = formatters[letter];
    // debug leaves %s and %j to util.format: the same, then the raw password replaced.
    const format: Formatter =
      typeof original === 'function' ? original : (value) => formatText(`%${letter}`, value);
    formatters[letter] = function (this: unknown, value: unknown): string {
      let text = format.call(this, value);
      for (const secret of hiddenRaw) if (text.includes(secret)) text = text.split(secret).join('***');
      return text;
    };
  }
}
