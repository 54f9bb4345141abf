import { errorDefaults } from './fault-error.js';
import type { ErrorInBody } from './fault-rule.js';

/** The body of a `whitespaceBody` fault: the platform's overload reply. */
export const WHITESPACE_BODY = '\n\n \n';

const PROVIDER_DETAIL = 'upstream provider: too many requests for this model, try again shortly';

/**
 * The start of an endless body: a chat reply opened up to its content string
 * for 200, else the status's JSON error opened up to its message.
 */
export function endlessStart(status: number, model: string, number: number): string {
  if (status === 200) {
    const head = { id: `chatcmpl-endless${number}`, object: 'chat.completion', created: 0, model };
    const opened = JSON.stringify(head).slice(0, -1);
    return `${opened},"choices":[{"index":0,"message":{"role":"assistant","content":"`;
  }
  return `{"error":{"message":"${errorDefaults(status).message} `;
}

/** An error body nested `depth` levels deep: `{"error":{"error":…{"message","code"}…}}`. */
export function deepErrorText(depth: number, status: number): string {
  const inner = JSON.stringify({ message: errorDefaults(status).message, code: status });
  return `${'{"error":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}

/** The JSON body of an `errorInBody` fault, as the gateway sends it with HTTP 200. */
export function errorInBodyJson(fault: ErrorInBody, model: string, number: number): Record<string, unknown> {
  const error = {
    code: fault.code,
    message: fault.message ?? errorDefaults(fault.code).message,
    metadata: { raw: fault.raw ?? PROVIDER_DETAIL, provider_name: 'upstream' },
  };
  if (fault.withChoices !== true) return { error };
  return {
    id: `chatcmpl-error${number}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'error' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    error,
  };
}
