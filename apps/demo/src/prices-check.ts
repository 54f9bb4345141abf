import { CliError } from './cli-error.js';
import type { Io } from './io.js';
import type { CliConfig } from './load-config.js';
import { gatewayBase, listingUrl } from './prices-check-address.js';
import { comparePrices } from './prices-check-compare.js';
import { heldPrices } from './prices-check-held.js';
import { readListing, shownUrl } from './prices-check-listing.js';
import { checkExitCode, printCheckJson, printCheckText } from './prices-check-report.js';
import { writeTableUpdates } from './prices-check-write.js';

/** Options of `switchboard prices check`. */
export interface PricesCheckOptions {
  /** The gateway's base address (its listing is `<base>/models`). */
  gateway?: string;
  json?: boolean;
  write?: boolean;
}

/**
 * `switchboard prices check [--gateway URL] [--json] [--write]`: every price we hold
 * against the gateway's listing. Exit 0 when all agree, 1 when any differs, 2 when the
 * listing cannot be read.
 */
export async function pricesCheckCommand(
  io: Io,
  options: PricesCheckOptions,
  loaded: CliConfig,
): Promise<void> {
  const apiKey = io.env.GATEWAY_API_KEY?.trim() || undefined;
  const url = listingUrl(gatewayBase(options.gateway, loaded, io.env), apiKey, io.env);
  const at = new Date();
  const listed = await readListing(url, apiKey);
  const check = comparePrices(heldPrices(loaded, at), listed);
  const listing = shownUrl(url);
  // Nothing is written when a listed price of ours could not be read: the check vouches for nothing then.
  const written =
    options.write && checkExitCode(check) === 1
      ? writeTableUpdates(process.cwd(), check, listed, listing)
      : null;
  const context = { listing, at, written };
  if (options.json) printCheckJson(io, check, context);
  else printCheckText(io, check, context);
  const code = checkExitCode(check);
  if (code === 0) return;
  const why =
    code === 2
      ? 'the listing has prices of our models it does not give as decimal strings'
      : `${check.differences.length + check.ambiguous.length} of our prices differ from the listing`;
  throw new CliError(why, code);
}
