// Generated from package.json by scripts/write-prices-version.mjs on every build; do not edit.

/** The version of `@switchboard/prices`, which names the price data a call was costed with. */
export const PRICES_VERSION = '0.1.0';
