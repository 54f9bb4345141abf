import { constants, gunzipSync, inflateSync } from 'node:zlib';

/**
 * Every text a reader could get out of a cassette file, decoded independently of
 * the package's own scanner: each line parsed, every string (and object key)
 * taken, each stream event's data parsed, the deltas of each field joined across
 * events, then each text unescaped (JSON / JavaScript), percent-decoded,
 * entity-decoded, base64- and hex-decoded at every offset, decompressed (gzip,
 * zlib in base64), read backwards, and read as NFKC without invisible characters
 * (bytes spelling UTF-8 read as UTF-8) and without separators, up to two layers.
 */
function decodedForms(file: string): string[] {
  const texts: string[] = [file];
  for (const line of file.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const joined = new Map<string, string>();
    walk(value, '', texts, joined);
    texts.push(...joined.values());
  }
  const out = new Set<string>();
  for (const text of texts) for (const form of layers(text, 2)) out.add(form);
  return [...out];
}

function walk(value: unknown, path: string, texts: string[], joined: Map<string, string>): void {
  if (typeof value === 'string') {
    texts.push(value);
    joined.set(path, (joined.get(path) ?? '') + value);
    const trimmed = value.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        walk(JSON.parse(value), `${path}>`, texts, joined);
      } catch {
        // not JSON
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((item) => Number.isInteger(item) && item >= 0 && item < 256)) {
      const bytes = Buffer.from(value as number[]).toString('latin1');
      texts.push(bytes);
      joined.set(`${path}#bytes`, (joined.get(`${path}#bytes`) ?? '') + bytes);
    }
    for (const item of value) {
      const index =
        typeof item === 'object' && item !== null && typeof (item as { index?: unknown }).index === 'number'
          ? (item as { index: number }).index
          : '';
      walk(item, `${path}[${index}]`, texts, joined);
    }
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [name, field] of Object.entries(value)) {
      texts.push(name);
      walk(field, `${path}.${name}`, texts, joined);
    }
  }
}

function layers(text: string, depth: number): string[] {
  const found = [text];
  if (depth === 0) return found;
  for (const decoded of decodings(text)) if (decoded !== text) found.push(...layers(decoded, depth - 1));
  return found;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  colon: ':',
  equals: '=',
  plus: '+',
  lowbar: '_',
  period: '.',
  hyphen: '\u2010',
};

/** Characters a reader does not see (zero-width, format, combining marks, Hangul fillers). */
const INVISIBLE = /[\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0]/gu;

function decodings(text: string): string[] {
  const out: string[] = [];
  // Read backwards; read as NFKC without what a reader does not see (bytes that spell UTF-8 read as
  // UTF-8 first), then without spaces and `,` `:` too (a key spaced out, hex as `73 6b` or `73:6b`).
  out.push([...text].reverse().join(''));
  const bytes = [...text].every((unit) => unit.charCodeAt(0) <= 0xff);
  const utf8 = bytes ? Buffer.from(text, 'latin1').toString('utf8') : text;
  for (const source of new Set([text, utf8])) {
    const readable = source.normalize('NFKC').replace(INVISIBLE, '');
    out.push(readable, readable.replace(/[\s\p{Z},:]/gu, ''));
  }
  // gzip and zlib in base64: a blob's run decompressed (what a reader piping it to gunzip gets).
  for (const run of text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
    const bytes = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    for (const inflate of [gunzipSync, inflateSync]) {
      try {
        out.push(inflate(bytes, { finishFlush: constants.Z_SYNC_FLUSH }).toString('latin1'));
      } catch {
        // not that format
      }
    }
  }
  out.push(
    text
      .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/\\(.)/g, '$1'),
  );
  out.push(
    text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
  );
  out.push(
    text.replace(
      /&(?:#(\d+)|#x([0-9a-fA-F]+)|([a-z]+));?/gi,
      (whole, dec?: string, hex?: string, name?: string) => {
        if (dec) return String.fromCodePoint(Number(dec));
        if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
        return ENTITIES[name ?? ''] ?? whole;
      },
    ),
  );
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    for (let offset = 0; offset < 4; offset += 1) {
      out.push(
        Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'),
      );
    }
  }
  for (const run of text.match(/[0-9a-fA-F]{16,}/g) ?? []) {
    for (let offset = 0; offset < 2; offset += 1)
      out.push(Buffer.from(run.slice(offset), 'hex').toString('latin1'));
  }
  return out;
}

/** Whether `secret` shows in any decoded form of `file`. */
export function holdsSecret(file: string, secret: string): boolean {
  return decodedForms(file).some((text) => text.includes(secret));
}
