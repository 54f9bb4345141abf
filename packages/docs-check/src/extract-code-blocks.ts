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
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = OPENING.exec(lines[index] ?? '');
    if (opening === null) continue;
    const [, fence = '```', word = '', rest = ''] = opening;
    const closing = new RegExp(`^ {0,3}${fence}\`*\\s*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] ?? '')) end += 1;
    const language = LANGUAGES[word.toLowerCase()];
    if (language !== undefined) {
      const flags = rest.trim();
      const skip = /^no-check\b(.*)$/.exec(flags);
      const noRun = /\bno-run\b(.*)$/.exec(flags);
      const previous = blocks.filter((block) => block.skipReason === null).at(-1);
      const continues = /^continues\b/.test(flags) && previous !== undefined;
      blocks.push({
        file,
        line: index + 1,
        language,
        skipReason: skip === null ? null : (skip[1] ?? '').trim(),
        noRunReason: noRun === null ? null : (noRun[1] ?? '').trim(),
        code: lines.slice(index + 1, end).join('\n'),
        prelude: continues ? `${previous.prelude}${previous.code}\n` : '',
      });
    }
    index = end;
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
  const lines = markdown.split(/\r?\n/);
  const recipes = new Map<string, { lines: number[]; parts: string[] }>();
  for (let index = 0; index < lines.length; index += 1) {
    const opening = OPENING.exec(lines[index] ?? '');
    if (opening === null) continue;
    const [, fence = '```', word = '', rest = ''] = opening;
    const closing = new RegExp(`^ {0,3}${fence}\`*\\s*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] ?? '')) end += 1;
    const name = /^recipe\s+([\w-]+)/.exec(rest.trim())?.[1];
    if (SHELLS.has(word.toLowerCase()) && name !== undefined) {
      const recipe = recipes.get(name) ?? { lines: [], parts: [] };
      recipe.lines.push(index + 1);
      recipe.parts.push(lines.slice(index + 1, end).join('\n'));
      recipes.set(name, recipe);
    }
    index = end;
  }
  return [...recipes].map(([name, { lines: at, parts }]) => ({
    file,
    name,
    lines: at,
    script: parts.join('\n'),
  }));
}
