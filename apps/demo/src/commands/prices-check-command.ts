import { type Command, Option } from 'commander';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { type PricesCheckOptions, pricesCheckCommand } from '../prices-check.js';

type Loaded = (options: { config?: string; strict?: boolean }) => Promise<CliConfig>;

/** Adds `switchboard prices check` under `prices`. */
export function addPricesCheckCommand(prices: Command, io: Io, loaded: Loaded): void {
  prices
    .command('check')
    .description(
      "compare every price we hold (shipped table, configuration, tiers, cache prices) with the gateway's GET /models listing: exit 1 when any differs, 2 when it cannot be read",
    )
    .option(
      '--gateway <url>',
      "the gateway's base address, its listing at <url>/models (default: the configured gateway address, GATEWAY_BASE_URL, or the gateway default; the key from GATEWAY_API_KEY)",
    )
    .option(
      '--write',
      "update the shipped table's differing entries from the listing and add a changeset for @switchboard/prices (run at the repository's root)",
    )
    .addOption(
      new Option(
        '-c, --config <file>',
        'a switchboard.toml or JSON config file whose [prices] are checked too',
      ),
    )
    .addOption(new Option('--strict', 'make config warnings errors, exit 2'))
    .addOption(new Option('--json', 'print machine-readable JSON on stdout'))
    .action(async (_options: unknown, command: Command) => {
      // `prices` has --json, --config and --strict too: whichever of the two read them, they count.
      const options = command.optsWithGlobals<PricesCheckOptions & { config?: string; strict?: boolean }>();
      await pricesCheckCommand(io, options, await loaded(options));
    });
}
