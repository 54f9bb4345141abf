import { type BudgetScopeListing, listBudgetScopes } from '@switchboard/budget';
import { type Command, Option } from 'commander';
import { BUDGET_SHOW_PAGE, renderBudgetScopes } from '../budget-show-table.js';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { safeJsonLine, safeText } from '../terminal-text.js';

/** Options of `switchboard budget show`. */
interface BudgetShowOptions {
  store?: string;
  scope?: string;
  schema?: string;
  prefix?: string;
  json?: boolean;
}

/** The library's option names, as the command line spells them. */
const FLAGS: readonly [RegExp, string][] = [
  [/listBudgetScopes options\.url/g, '--store'],
  [/listBudgetScopes options\.scope/g, '--scope'],
  [/listBudgetScopes options\.schema/g, '--schema'],
  [/listBudgetScopes options\.prefix/g, '--prefix'],
];

/**
 * `switchboard budget show --store <url>`: every scope the store holds, read-only, as tables of up
 * to 500 scopes (or, with --json, `{ scopes: [...] }` written as the scopes arrive).
 */
async function budgetShowCommand(io: Io, options: BudgetShowOptions): Promise<void> {
  if (options.store === undefined || options.store === '') {
    throw new CliError(
      '--store is required: the budget store to read, redis://… or postgres://…',
      BAD_INPUT_EXIT_CODE,
    );
  }
  let listings: AsyncIterable<BudgetScopeListing>;
  try {
    listings = listBudgetScopes({
      url: options.store,
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
  } catch (error) {
    throw cliErrorOf(error);
  }
  let count = 0;
  let page: BudgetScopeListing[] = [];
  const flush = () => {
    if (page.length > 0) io.stdout(`${renderBudgetScopes(page, { color: io.color })}\n`);
    page = [];
  };
  try {
    for await (const listing of listings) {
      if (options.json)
        io.stdout(`${count === 0 ? '{"scopes":[\n' : ',\n'}${safeJsonLine(listing).trimEnd()}`);
      else page.push(listing);
      count++;
      if (page.length >= BUDGET_SHOW_PAGE) flush();
    }
  } catch (error) {
    // A listing cut short: the JSON written so far is closed, so stdout stays one document.
    if (options.json && count > 0) io.stdout('\n]}\n');
    throw cliErrorOf(error);
  }
  if (options.json) {
    io.stdout(count === 0 ? '{"scopes":[]}\n' : '\n]}\n');
    return;
  }
  flush();
  if (count === 0)
    io.stdout(
      options.scope === undefined
        ? 'no budget scopes in this store\n'
        : `no scope ${safeText(options.scope)} in this store\n`,
    );
}

/** A refusal of the library as the CLI reports it: bad input (exit 2) or a store that failed (exit 1). */
function cliErrorOf(error: unknown): Error {
  if (error instanceof TypeError) {
    let message = error.message;
    for (const [pattern, flag] of FLAGS) message = message.replace(pattern, flag);
    return new CliError(message, BAD_INPUT_EXIT_CODE);
  }
  if (error instanceof Error && error.name === 'StoreError') {
    const configuration = (error as { configuration?: unknown }).configuration === true;
    return new CliError(error.message, configuration ? BAD_INPUT_EXIT_CODE : 1);
  }
  // ioredis or pg, optional peers of @switchboard/budget, not installed.
  if (error instanceof Error && /needs the `(ioredis|pg)` package/.test(error.message)) {
    return new CliError(error.message, 1);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Adds `switchboard budget show`. */
export function addBudgetCommand(program: Command, io: Io): void {
  program
    .command('budget')
    .description("look at a running service's budget in its store")
    .command('show')
    .description(
      "every scope the store holds: spent, reserved, in flight, unsettled, the current window (by the store's clock) and the past windows kept; read-only",
    )
    .option(
      '--store <url>',
      'the budget store: redis://… or rediss://… (a Cluster node lists the whole cluster), postgres://…',
    )
    .option('--scope <name>', 'only this scope, e.g. run-42 or run-42/judge')
    .option('--schema <name>', "PostgreSQL: the budget's schema (default switchboard, as the store's)")
    .option(
      '--prefix <prefix>',
      "Redis: the budget's key prefix (default switchboard:budget:, as the store's)",
    )
    .addOption(new Option('--json', 'print machine-readable JSON on stdout'))
    .action((options: BudgetShowOptions) => budgetShowCommand(io, options));
}
