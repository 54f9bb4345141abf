import { withoutSeparators } from './normalised-view.js';
import { forEachView } from './secret-views.js';
import { sourceEnd, sourceStart } from './view-builder.js';

/** What a secret is replaced with in a cassette. */
export const SECRET_MARKER = '[secret removed]';

/**
 * The shortest value treated as a secret by value: shorter ones (a placeholder
 * such as `replay`, `k` or `x`) cannot be told from ordinary text, and no
 * provider issues keys that short. Credential shapes are removed whatever the key.
 */
export const MIN_SECRET_LENGTH = 8;

const NOT_MARKER = '(?!\\[secret removed\\])';

/**
 * A token of these characters that looks like a secret rather than a word: at
 * least 8 of them with a digit among them, or at least 20 ("Bearer tokens" stays).
 */
function token(characters: string): string {
  return `(?=[${characters}]*\\d)[${characters}]{8,}|[${characters}]{20,}`;
}

/**
 * Shapes of credentials removed whatever key is in use, each with a `secret`
 * group (what is removed) and a name (what a refusal or a check says).
 */
const CREDENTIAL_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    new RegExp(`\\b(?:Bearer|Basic)\\s+${NOT_MARKER}(?<secret>${token('A-Za-z0-9._~+/=-')})`, 'gid'),
    'a bearer token',
  ],
  [/(?<secret>\b(?:sk-|sk_live_|sk_test_|rk_live_|rk_test_)[A-Za-z0-9_-]{8,})/dg, 'an sk-style key'],
  [/(?<secret>\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))/dg, 'a GitHub token'],
  [/(?<secret>\bxox[abposr]-[A-Za-z0-9-]{10,})/dg, 'a Slack token'],
  [/(?<secret>\b(?:AKIA|ASIA)[0-9A-Z]{16})\b/dg, 'an AWS access key'],
  [/(?<secret>\bAIza[0-9A-Za-z_-]{30,})/dg, 'a Google API key'],
  // From the start of a run only: from each `eyJ` of a long run (`eyJ-eyJ-…`) it would scan the rest each time.
  [
    /(?<![A-Za-z0-9_-])(?<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/dg,
    'a JSON web token',
  ],
  [
    /(?<secret>-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))/dg,
    'a private key',
  ],
  [
    // Found from its `://` (a scheme's letter before it), never from each letter of a long run before it.
    new RegExp(`[a-z0-9+.-]:\\/\\/${NOT_MARKER}(?<secret>[^\\s/?#@"'<>]+)@`, 'gid'),
    'the userinfo of a URL',
  ],
  [
    new RegExp(
      `[?&;](?:api[_-]?key|apikey|key|token|access[_-]?token|auth|password|passwd|secret|client[_-]?secret|sig|signature)=${NOT_MARKER}(?<secret>[^&#\\s"'<>]+)`,
      'gid',
    ),
    'a key-like query parameter',
  ],
  [
    new RegExp(
      `\\b(?:x-api-key|api-key|x-goog-api-key|authorization)["']?\\s*[:=]\\s*["']?${NOT_MARKER}(?:(?:Bearer|Basic)\\s+)?${NOT_MARKER}(?<secret>${token('^\\s"\',;&<>')})`,
      'gid',
    ),
    'an API key header',
  ],
];

/**
 * What every credential shape starts with (case aside): a text without any of
 * these holds none, and is not run through each shape (one pass instead of twelve).
 */
const MAY_HOLD_SHAPE =
  /Bearer|Basic|sk[-_]|rk_|gh[pousr]_|github_pat_|xox|AKIA|ASIA|AIza|eyJ|PRIVATE KEY|:\/\/|[?&;][a-z_-]{1,24}=|api-key|authorization/i;

/** What to look for: the keys in use (values of at least {@link MIN_SECRET_LENGTH}), and every credential shape. */
export interface SecretRules {
  /** The secret values, each with a name a finding says (`the API key`); never shown. */
  readonly keys: ReadonlyArray<{ readonly value: string; readonly name: string }>;
}

/** The rules for these keys: values too short to be secrets, and repeats, are left out. */
export function secretRules(keys: ReadonlyArray<string | { value: string; name: string }>): SecretRules {
  const seen = new Set<string>();
  const kept: Array<{ value: string; name: string }> = [];
  for (const key of keys) {
    const entry = typeof key === 'string' ? { value: key, name: 'the API key' } : key;
    if (typeof entry.value !== 'string' || entry.value.trim().length < MIN_SECRET_LENGTH) continue;
    if (seen.has(entry.value)) continue;
    seen.add(entry.value);
    kept.push(entry);
  }
  return { keys: kept };
}

/** One secret found in a text: the source range to remove, what it is and in which form it showed. */
export interface Finding {
  readonly start: number;
  readonly end: number;
  /** `the API key`, `a bearer token`... never the value. */
  readonly what: string;
  /** `as is`, `base64`, `percent-encoded of base64`... */
  readonly form: string;
}

/** One text a key is looked for as: the key, its UTF-8 bytes, reversed, without separators. */
interface Needle {
  readonly needle: string;
  readonly name: string;
  readonly reversed: boolean;
}

const NEEDLES = new WeakMap<SecretRules, readonly Needle[]>();

/**
 * The texts each key is looked for as, in every view: as given, its UTF-8 bytes
 * (a percent- or base64-decoded view holds bytes), as the spaced-out views
 * read it (a shorter form than a secret is not kept), and each of
 * these reversed.
 */
function needlesOf(rules: SecretRules): readonly Needle[] {
  const known = NEEDLES.get(rules);
  if (known !== undefined) return known;
  const needles: Needle[] = [];
  for (const { value, name } of rules.keys) {
    const compact = withoutSeparators(value);
    const forms = new Set([value, Buffer.from(value, 'utf8').toString('latin1')]);
    if (compact.length >= MIN_SECRET_LENGTH) forms.add(compact);
    for (const form of [...forms]) {
      needles.push({ needle: form, name, reversed: false });
      const reversed = [...form].reverse().join('');
      if (reversed !== form) needles.push({ needle: reversed, name, reversed: true });
    }
  }
  NEEDLES.set(rules, needles);
  return needles;
}

/** Where the secrets of `rules` show in `text`, as is or in any decoded view of it. */
export function findSecrets(text: string, rules: SecretRules): Finding[] {
  const findings: Finding[] = [];
  if (text.length === 0) return findings;
  const needles = needlesOf(rules);
  forEachView(text, (view) => {
    const add = (start: number, end: number, what: string, form = view.form) => {
      const from = sourceStart(view, start);
      const to = sourceEnd(view, end - 1);
      if (from >= 0 && to > from) findings.push({ start: from, end: to, what, form });
    };
    for (const { needle, name, reversed } of needles) {
      for (let at = view.text.indexOf(needle); at >= 0; at = view.text.indexOf(needle, at + 1)) {
        add(
          at,
          at + needle.length,
          name,
          reversed ? (view.form === 'as is' ? 'reversed' : `reversed, ${view.form}`) : view.form,
        );
      }
    }
    for (const [start, end] of view.opaque ?? []) {
      findings.push({ start, end, what: OPAQUE, form: view.form });
    }
    if (view.spacedOut === true || !MAY_HOLD_SHAPE.test(view.text)) return;
    for (const [shape, name] of CREDENTIAL_SHAPES) {
      shape.lastIndex = 0;
      for (const match of view.text.matchAll(shape)) {
        const range = match.indices?.groups?.secret;
        if (range !== undefined && range[1] > range[0]) add(range[0], range[1], name);
      }
    }
  });
  return findings;
}

/** What a blob too large to decompress counts as: it could hold anything. */
const OPAQUE = 'compressed data that decompresses past 64 times its size (not looked into)';

/** A text with the ranges of `findings` removed, the marker put where each (merged) range began. */
function withoutRanges(pieces: readonly string[], findings: readonly Finding[]): string[] {
  const ranges = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Array<[number, number]> = [];
  for (const { start, end } of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  const out: string[] = [];
  let offset = 0;
  let next = 0;
  for (const piece of pieces) {
    const end = offset + piece.length;
    let text = '';
    let at = offset;
    // Each merged range that touches this piece: the kept text before it, the marker where it began.
    while (at < end) {
      while (next < merged.length && (merged[next] as [number, number])[1] <= at) next += 1;
      const range = merged[next];
      if (range === undefined || range[0] >= end) {
        text += piece.slice(at - offset);
        break;
      }
      if (range[0] > at) text += piece.slice(at - offset, range[0] - offset);
      if (range[0] >= at) text += SECRET_MARKER;
      at = Math.min(range[1], end);
    }
    offset = end;
    out.push(text);
  }
  return out;
}

/**
 * Where the secrets of `rules` show in the text `pieces` make together. Pieces
 * that are all one text (a stream's id, model or object, the same in each of
 * 100,000 events) are first scanned as a few copies of it: a secret of the whole
 * repetition spans at most its own length and a decoding's period (4 copies for
 * base64, 16 for base64 of base64), so it shows in those copies too; only when
 * they show one is the whole text scanned, to say where. Work stays linear.
 */
export function findInPieces(pieces: readonly string[], rules: SecretRules): Finding[] {
  const first = pieces[0] as string;
  if (
    pieces.length > 1 &&
    pieces.every((piece) => piece === first) &&
    repeatsClean(first, pieces.length, rules)
  ) {
    return [];
  }
  return findSecrets(pieces.length === 1 ? first : pieces.join(''), rules);
}

/**
 * Whether `text` repeated `count` times is known to hold no secret of `rules`,
 * from a scan of a few copies (see `findInPieces`); false when that says nothing.
 */
export function repeatsClean(text: string, count: number, rules: SecretRules): boolean {
  if (text.length === 0) return true;
  const copies = 16 + Math.ceil((longestNeedle(rules) + 512) / text.length);
  return count > copies && findSecrets(text.repeat(copies), rules).length === 0;
}

function longestNeedle(rules: SecretRules): number {
  return needlesOf(rules).reduce((longest, { needle }) => Math.max(longest, needle.length), 0);
}

/** How many rounds scrubbing goes before it gives up (removing one form can uncover another). */
const MAX_ROUNDS = 8;

/**
 * Pieces of one text (a stream's deltas of one field, in order) with every
 * secret of `rules` removed from the text they make together, as is or in any
 * decoded view: each removed run is replaced by the marker in the piece where it
 * began. Pieces without a secret come back as they were. `left` is what a last
 * scan still found after `MAX_ROUNDS` rounds (none: the pieces are clean).
 */
export function scrubPiecesChecked(
  pieces: readonly string[],
  rules: SecretRules,
): { pieces: string[]; left: Finding | undefined; changed: boolean } {
  let current = [...pieces];
  for (let round = 0; ; round += 1) {
    const findings = findInPieces(current, rules);
    if (findings.length === 0) return { pieces: current, left: undefined, changed: round > 0 };
    if (round === MAX_ROUNDS) return { pieces: current, left: findings[0], changed: true };
    current = withoutRanges(current, findings);
  }
}

/** A text with every secret of `rules` removed (see `scrubPiecesChecked`). */
export function scrubString(text: string, rules: SecretRules): string {
  return scrubPiecesChecked([text], rules).pieces[0] as string;
}

/** Names of environment variables whose values are secrets: `*API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`... */
const SECRET_VARIABLE = /(?:API_KEY|ACCESS_KEY|SECRET_KEY|PRIVATE_KEY|_TOKEN|_SECRET|_PASSWORD)$/i;

/** Any other `*_KEY` variable's value is a secret only when it looks like one: 16 characters or more, a digit among them. */
const OTHER_KEY_VARIABLE = /_KEY$/i;

/**
 * The secret values of an environment: those of `SECRET_VARIABLE` variables
 * of at least {@link MIN_SECRET_LENGTH} characters, and of other `*_KEY` variables
 * that look like keys (a `SORT_KEY=created_at` is not one), each named by its variable.
 */
export function environmentSecrets(
  env: Readonly<Record<string, string | undefined>>,
): Array<{ value: string; name: string }> {
  return Object.entries(env)
    .filter((entry): entry is [string, string] => {
      const [name, value] = entry;
      if (typeof value !== 'string' || name.startsWith('SWITCHBOARD_CASSETTE')) return false;
      const length = value.trim().length;
      if (SECRET_VARIABLE.test(name)) return length >= MIN_SECRET_LENGTH;
      return OTHER_KEY_VARIABLE.test(name) && length >= 16 && /\d/.test(value);
    })
    .map(([name, value]) => ({ value, name: `the value of ${name}` }));
}
