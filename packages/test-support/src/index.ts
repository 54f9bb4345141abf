export { anyPrices, type PricesShape, pricePerMillion } from './any-prices.js';
export { anythingAtAll } from './anything-at-all.js';
export { bodyOf } from './body-of.js';
export { emptyChatResponse } from './empty-chat-response.js';
export { looseTokenValue, nearUsage } from './near-usage.js';
export { failureOfKind, rejectionOf } from './rejection-of.js';
export { type SharedEmulatorOptions, sharedEmulator } from './shared-emulator.js';
export { closeTestEmulators, startTestEmulator } from './start-test-emulator.js';
