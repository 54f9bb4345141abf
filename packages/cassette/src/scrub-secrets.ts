/** What a secret is replaced with in a cassette. */
export const SECRET_MARKER = '[secret removed]';

// Shapes of credentials worth removing whatever key is in use: bearer tokens,
// `sk-`-style keys, the userinfo of a URL and key-like query parameters.
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${SECRET_MARKER}`],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, SECRET_MARKER],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"']+@/gi, `$1${SECRET_MARKER}@`],
  [
    /([?&](?:api[_-]?key|key|token|access[_-]?token|auth|password|secret)=)[^&#\s"']+/gi,
    `$1${SECRET_MARKER}`,
  ],
];

/** A string with the key and every credential-shaped run replaced by the marker. */
export function scrubText(text: string, key: string): string {
  let scrubbed = key === '' ? text : text.split(key).join(SECRET_MARKER);
  for (const [pattern, replacement] of PATTERNS) scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}

/**
 * A deep copy of a JSON value whose strings (values and object keys) have the
 * key and every credential-shaped run (bearer tokens, `sk-`-style keys, URL
 * userinfo, key-like query parameters) replaced by {@link SECRET_MARKER}.
 * Plain JSON in, plain JSON out.
 */
export function scrubSecrets<T>(value: T, key: string): T {
  return scrubValue(value, key) as T;
}

function scrubValue(value: unknown, key: string): unknown {
  if (typeof value === 'string') return scrubText(value, key);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, key));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const [name, field] of Object.entries(value)) copy[scrubText(name, key)] = scrubValue(field, key);
  return copy;
}

/**
 * How the key shows in a text despite scrubbing, or null: as is, URL-encoded,
 * JSON-escaped, base64 (standard or URL-safe) or hex. A cassette line in which it
 * shows is never written.
 */
export function keyFormIn(text: string, key: string): string | null {
  if (key === '') return null;
  const bytes = Buffer.from(key, 'utf8');
  const forms: ReadonlyArray<readonly [string, string]> = [
    ['as is', key],
    ['URL-encoded', encodeURIComponent(key)],
    ['JSON-escaped', JSON.stringify(key).slice(1, -1)],
    ['base64-encoded', bytes.toString('base64').replace(/=+$/, '')],
    ['base64url-encoded', bytes.toString('base64url')],
    ['hex-encoded', bytes.toString('hex')],
  ];
  const lower = text.toLowerCase();
  for (const [name, form] of forms) {
    if (form === '') continue;
    if (name === 'hex-encoded' ? lower.includes(form) : text.includes(form)) return name;
  }
  return null;
}
