import { ChatError } from '@switchboard/adapter';
import { failureOfKind } from '@switchboard/test-support';

/** The promise's rejection, which must be a ChatError; fails the test when it resolves. */
export const failureOf = failureOfKind(ChatError.isInstance);
