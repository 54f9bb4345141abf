import { describeError } from './describe-error.js';

/**
 * Why a journal could not be read, without its path (the report names it): a system error as
 * its code and words (`ENOENT: no such file or directory`), anything else described.
 */
export function unreadableWhy(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && typeof message === 'string')
    return message.replace(/, \w+ '[^']*'$/, '').slice(0, 200);
  return describeError(error);
}
