/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** `ts` or `js`. */
  readonly language: 'ts' | 'js';
  /** Why the block is not checked, from a ```ts no-check <reason> fence; null when it is checked. */
  readonly skipReason: string | null;
  /**
   * Why the block is type-checked but not run, from a ```ts no-run <reason> fence (e.g. it
   * needs a Redis server or an OpenTelemetry collector); null when it is run.
   */
  readonly noRunReason: string | null;
  /** The code between the fences. */
  readonly code: string;
  /**
   * The code of the earlier blocks this one continues (a ```ts continues fence
   * goes on from the previous checked ts/js block of the same file, whose own fence may
   * say `continues` too), or '' for a block that stands alone.
   */
  readonly prelude: string;
}

const LANGUAGES: Record<string, CodeBlock['language']> = {
  ts: 'ts',
  typescript: 'ts',
  js: 'js',
  javascript: 'js',
};

// A fence of three or more backticks, indented at most three spaces (CommonMark), then an info string.
const OPENING = /^ {0,3}(`{3,})\s*([\w-]*)(.*)$/;

/**
 * The ts/js fenced code blocks of a Markdown text. A fence's info string may
 * say `continues` (the block goes on from the previous ts/js block, e.g. uses
 * its `emulator`), `no-check` followed by the reason (```` ```ts no-check
 * needs a live key ````), or `no-run` and the reason (type-checked, not run); a
 * bare `no-check` or `no-run` without a reason is returned with the reason `''`,
 * which the docs test refuses.
 */
export function extractCodeBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const fence of fencesOf(markdown)) {
    const language = LANGUAGES[fence.word];
    if (language === undefined) continue;
    const flags = fence.rest.trim();
    const skip = /^no-check\b(.*)$/.exec(flags);
    const noRun = /\bno-run\b(.*)$/.exec(flags);
    const previous = blocks.filter((block) => block.skipReason === null).at(-1);
    const continues = /^continues\b/.test(flags) && previous !== undefined;
    blocks.push({
      file,
      line: fence.line,
      language,
      skipReason: skip === null ? null : (skip[1] ?? '').trim(),
      noRunReason: noRun === null ? null : (noRun[1] ?? '').trim(),
      code: fence.body,
      prelude: continues ? `${previous.prelude}${previous.code}\n` : '',
    });
  }
  return blocks;
}

/** A shell recipe of a Markdown file: its ```sh recipe <name> blocks, in order, as one script. */
export interface ShellRecipe {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** The recipe's name, from the fences. */
  readonly name: string;
  /** The 1-based line of each of its blocks' opening fences. */
  readonly lines: readonly number[];
  /** The blocks' commands, joined in the order they appear. */
  readonly script: string;
}

const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);

/**
 * The shell recipes of a Markdown text: every ```` ```sh recipe <name> ```` block, grouped by
 * name (the blocks of one recipe are one script, run top to bottom, so a later block uses
 * the variables and working directory an earlier one left). Unmarked shell blocks are not
 * recipes and are not returned.
 */
export function extractShellRecipes(file: string, markdown: string): ShellRecipe[] {
  const recipes = new Map<string, { lines: number[]; parts: string[] }>();
  for (const fence of fencesOf(markdown)) {
    const name = /^recipe\s+([\w-]+)/.exec(fence.rest.trim())?.[1];
    if (!SHELLS.has(fence.word) || name === undefined) continue;
    const recipe = recipes.get(name) ?? { lines: [], parts: [] };
    recipe.lines.push(fence.line);
    recipe.parts.push(fence.body);
    recipes.set(name, recipe);
  }
  return [...recipes].map(([name, { lines: at, parts }]) => ({
    file,
    name,
    lines: at,
    script: parts.join('\n'),
  }));
}

/** A fenced block of a Markdown text: where it opens, its info string, and the lines between its fences. */
interface Fence {
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's first word, lower-cased (`ts`, `sh`…). */
  readonly word: string;
  /** The rest of the info string (`continues`, `no-run <reason>`, `recipe <name>`…). */
  readonly rest: string;
  /** The lines between the fences. */
  readonly body: string;
}

/** Every fenced block of a Markdown text, in order; an unclosed fence runs to the end of the text. */
function* fencesOf(markdown: string): Generator<Fence> {
  const lines = markdown.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const opening = OPENING.exec(lines[index] ?? '');
    if (opening === null) continue;
    const [, fence = '```', word = '', rest = ''] = opening;
    const closing = new RegExp(`^ {0,3}${fence}\`*\\s*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] ?? '')) end += 1;
    yield { line: index + 1, word: word.toLowerCase(), rest, body: lines.slice(index + 1, end).join('\n') };
    index = end;
  }
}
