import type { IncomingMessage } from 'node:http';
import { generationOf } from '../billing/generation.js';
import { completeChat } from '../chat/complete-chat.js';
import { type EmptyJsonSelector, selectsEmptyJson } from '../chat/empty-json.js';
import type { ModelRejectionWording } from '../chat/model-rejection.js';
import { validateChatRequest } from '../chat/validate-chat-request.js';
import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { invalidField } from '../http/api-error.js';
import { checkAuthorization } from '../http/check-authorization.js';
import { routeRequest } from '../http/route-request.js';
import type { RouteResult } from '../http/route-result.js';
import type { EmulatorState } from './emulator-state.js';
import type { RequestFacts } from './record-request.js';

/** The header that sets one request's answer length in tokens (for benchmarks). */
export const ANSWER_TOKENS_HEADER = 'x-emulator-answer-tokens';

/** The largest answer length the `x-emulator-answer-tokens` header may ask for. */
export const MAX_ANSWER_TOKENS = 200_000;

/** Fixed settings of the emulator's answers. */
export interface AnswerSettings {
  readonly flavor: EmulatorFlavor;
  readonly key: string | null;
  readonly emptyJson: EmptyJsonSelector | undefined;
  readonly answerTokens: number | null;
  /** The wording of the 400 for an unknown model. */
  readonly modelRejection: ModelRejectionWording;
  /** The request body cap in bytes (past it, a 413). */
  readonly maxRequestBytes: number;
  /** Refuse chat body fields OpenAI's API does not have, as a strict compatible server does. */
  readonly strictFields: boolean;
}

/**
 * The emulator's own answer to a recorded request: 401 without the key, the
 * route's answer (a 413 past the body cap among them), a 400 for a bad chat
 * request, else a completion.
 */
export function answerRequest(
  state: EmulatorState,
  settings: AnswerSettings,
  request: IncomingMessage,
  facts: RequestFacts,
  emptyContentFault: boolean,
): RouteResult {
  if (settings.key !== null) {
    const denied = checkAuthorization(request.headers.authorization, settings.key);
    if (denied !== null) return denied;
  }
  const routed = routeRequest(facts.method, facts.pathname, facts.parsed, settings.flavor);
  if ('status' in routed) return routed;
  const outcome = validateChatRequest(routed.body, {
    flavor: settings.flavor,
    modelRejection: settings.modelRejection,
    ledger: state.ledger,
    strictFields: settings.strictFields,
  });
  if (!outcome.ok) return outcome.error;
  const answerTokens = readAnswerTokens(request.headers[ANSWER_TOKENS_HEADER], settings.answerTokens);
  if (typeof answerTokens === 'object' && answerTokens !== null) return answerTokens;

  let emptyContent = emptyContentFault;
  if (outcome.request.jsonMode) {
    const jsonNumber = ++state.jsonCount;
    const selected = selectsEmptyJson(settings.emptyJson, {
      number: facts.number,
      jsonNumber,
      model: outcome.request.model,
      body: routed.body as Record<string, unknown>,
    });
    emptyContent ||= selected;
  }
  const body = completeChat(outcome.request, {
    sequence: ++state.sequence,
    cache: state.cache,
    emptyContent,
    answerTokens,
    flavor: settings.flavor,
    ledger: state.ledger,
  });
  const generation = generationOf(body);
  if (!outcome.request.stream) return { status: 200, body, generation };
  const primaryThinking = settings.flavor !== 'gateway' && outcome.request.thinking;
  return {
    status: 200,
    body,
    generation,
    stream: {
      flavor: settings.flavor,
      includeUsage: outcome.request.includeUsage,
      keepAlives: primaryThinking ? PRIMARY_KEEP_ALIVES : 0,
    },
  };
}

/** `: keep-alive` comments the primary platform sends before a streamed reply while it thinks. */
const PRIMARY_KEEP_ALIVES = 2;

function readAnswerTokens(
  header: string | string[] | undefined,
  fallback: number | null,
): number | null | RouteResult {
  if (header === undefined) return fallback;
  const tokens = typeof header === 'string' && /^\d{1,7}$/.test(header.trim()) ? Number(header) : Number.NaN;
  if (!Number.isInteger(tokens) || tokens < 1 || tokens > MAX_ANSWER_TOKENS) {
    return invalidField(
      ANSWER_TOKENS_HEADER,
      `Header '${ANSWER_TOKENS_HEADER}' must be an integer from 1 to ${MAX_ANSWER_TOKENS}`,
    );
  }
  return tokens;
}
