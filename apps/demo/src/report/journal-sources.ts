import { readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { type NamedJournal, postgresJournalSource } from '@switchboard/telemetry';

/** The journals named on the command line, and the names that gave none (with why). */
export interface JournalSources {
  readonly journals: readonly NamedJournal[];
  /** The journals in PostgreSQL, with their address (without `schema` and `budget_schema`) and the budget's schema there. */
  readonly postgres: readonly {
    readonly url: string;
    readonly budgetSchema: string;
    readonly journal: NamedJournal;
  }[];
  readonly unmatched: readonly { readonly file: string; readonly why: string }[];
}

const MAGIC = /[*?[]/;
/** A journal in PostgreSQL (`PostgresJournal`): `postgres://…[?schema=…]`. */
const POSTGRES = /^postgres(ql)?:\/\//i;

/**
 * The journals `report` reads for its arguments, in order, each file once: a file as itself
 * (`-`: stdin); a folder: every `*.jsonl` directly in it, by name; a glob (`*`, `?`, `[…]` in a
 * segment, `**` for any folders): the files it matches, by name — for a pattern the shell
 * passed on quoted; `postgres://…[?schema=…][&budget_schema=…]`: a journal in PostgreSQL, named without its
 * password. A folder without journals and a glob matching nothing are named in
 * `unmatched`; a file that cannot be read is left to the reader, which names it.
 */
export async function journalSources(
  args: readonly string[],
  warn: (message: string) => void,
): Promise<JournalSources> {
  const journals: NamedJournal[] = [];
  const postgres: { url: string; budgetSchema: string; journal: NamedJournal }[] = [];
  const unmatched: { file: string; why: string }[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    const key = file === '-' ? '-' : resolve(file);
    if (seen.has(key)) return;
    seen.add(key);
    journals.push({ name: file === '-' ? '<stdin>' : file, source: file });
  };
  for (const arg of args) {
    if (POSTGRES.test(arg)) {
      // `budget_schema` names the budget's schema in the same database (default switchboard), for --verify.
      let url: URL;
      try {
        url = new URL(arg);
      } catch {
        unmatched.push({ file: 'postgres://…', why: 'not an address (not shown: it may hold a password)' });
        continue;
      }
      const budgetSchema = url.searchParams.get('budget_schema') ?? 'switchboard';
      url.searchParams.delete('budget_schema');
      const journal = postgresJournalSource(url.toString(), { warn });
      url.searchParams.delete('schema');
      journals.push(journal);
      postgres.push({ url: url.toString(), budgetSchema, journal });
      continue;
    }
    if (arg !== '-' && MAGIC.test(arg)) {
      const files = await globFiles(arg);
      if (files.length === 0) unmatched.push({ file: arg, why: 'no file matches it' });
      for (const file of files) add(file);
      continue;
    }
    const kind = arg === '-' ? null : await stat(arg).catch(() => null);
    if (kind?.isDirectory()) {
      const files = await folderJournals(arg);
      if (files === null) unmatched.push({ file: arg, why: 'the folder cannot be listed' });
      else if (files.length === 0) unmatched.push({ file: arg, why: 'the folder holds no *.jsonl file' });
      else for (const file of files) add(file);
    } else add(arg);
  }
  return { journals, postgres, unmatched };
}

async function folderJournals(folder: string): Promise<string[] | null> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries
      .filter((entry) => entry.name.endsWith('.jsonl') && !entry.isDirectory())
      .map((entry) => join(folder, entry.name))
      .sort();
  } catch {
    return null;
  }
}

/** The files a glob matches, sorted: each segment matched against the names in its folder. */
async function globFiles(pattern: string): Promise<string[]> {
  const absolute = pattern.startsWith('/');
  const segments = pattern.split(/[\\/]+/).filter((segment) => segment !== '');
  const found: string[] = [];
  await walk(absolute ? sep : '', segments, found);
  return found.sort();
}

async function walk(base: string, segments: readonly string[], found: string[]): Promise<void> {
  const [segment, ...rest] = segments;
  if (segment === undefined) {
    const kind = await stat(base).catch(() => null);
    if (kind?.isFile()) found.push(base);
    return;
  }
  if (!MAGIC.test(segment)) {
    await walk(base === '' ? segment : join(base, segment), rest, found);
    return;
  }
  let entries: { name: string; isDirectory(): boolean }[];
  try {
    entries = await readdir(base === '' ? '.' : base, { withFileTypes: true });
  } catch {
    return;
  }
  if (segment === '**') {
    // `**`: this folder and every folder under it.
    await walk(base, rest, found);
    for (const entry of entries)
      if (entry.isDirectory() && !entry.name.startsWith('.'))
        await walk(base === '' ? entry.name : join(base, entry.name), segments, found);
    return;
  }
  const match = segmentRegex(segment);
  for (const entry of entries) {
    if (!match.test(entry.name) || (entry.name.startsWith('.') && !segment.startsWith('.'))) continue;
    await walk(base === '' ? entry.name : join(base, entry.name), rest, found);
  }
}

function segmentRegex(segment: string): RegExp {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = segment.indexOf(']', index + 2);
      if (close === -1) source += '\\[';
      else {
        const body = segment
          .slice(index + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = close;
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether `report` reads its arguments as many journals: more than one, a folder, or a glob. */
export async function namesManyJournals(args: readonly string[]): Promise<boolean> {
  if (args.length !== 1) return true;
  const [arg] = args as [string];
  if (arg === '-') return false;
  if (POSTGRES.test(arg)) return true;
  if (MAGIC.test(arg)) return true;
  return (await stat(arg).catch(() => null))?.isDirectory() === true;
}
