import { failureOfKind } from '@switchboard/test-support';
import { ChatError } from '../../src/index.js';

export { rejectionOf } from '@switchboard/test-support';

/** The promise's rejection, expected to be a ChatError; fails the test when it resolves. */
export const failureOf = failureOfKind(ChatError.isInstance);
