import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { apiError, invalidField } from './api-error.js';
import { alterAnswer, deliveryOf, faultReply } from './apply-fault.js';
import { checkAuthorization } from './check-authorization.js';
import { completeChat } from './complete-chat.js';
import { deliverReply } from './deliver-reply.js';
import { type EmptyJsonSelector, selectsEmptyJson } from './empty-json.js';
import type { EmulatorState } from './emulator-state.js';
import type { FaultRule, ModelRejectionWording } from './fault-rule.js';
import { resolveModelId } from './models.js';
import { type ParsedBody, parseBody, readBody } from './read-body.js';
import { redactHeaders } from './recorded-request.js';
import { routeRequest } from './route-request.js';
import { type RouteResult, sendResult } from './route-result.js';
import { validateChatRequest } from './validate-chat-request.js';

/** The header that sets one request's answer length in tokens (for benchmarks). */
export const ANSWER_TOKENS_HEADER = 'x-emulator-answer-tokens';

/** Fixed settings of a request handler. */
export interface HandlerSettings {
  readonly key: string | null;
  readonly emptyJson: EmptyJsonSelector | undefined;
  readonly answerTokens: number | null;
  /** The wording of the 400 for an unknown model. */
  readonly modelRejection: ModelRejectionWording;
  /** Aborted when the emulator closes, ending pending delays and endless bodies. */
  readonly signal: AbortSignal;
}

/** The emulator's request listener: record, apply the fault plan, then answer. */
export function createRequestHandler(state: EmulatorState, settings: HandlerSettings): RequestListener {
  return (request, response) => {
    state.requestStarted();
    response.once('close', () => state.requestEnded());
    handle(state, settings, request, response).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      sendResult(response, apiError(500, `Internal emulator error: ${reason}`, { type: 'server_error' }));
    });
  };
}

async function handle(
  state: EmulatorState,
  settings: HandlerSettings,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const parsed = parseBody(await readBody(request));
  const number = ++state.requestCount;
  const target = request.url ?? '/';
  const pathname = target.split('?')[0] ?? '/';
  const method = request.method ?? 'GET';
  state.requests.push({
    number,
    method,
    path: target,
    headers: redactHeaders(request.headers),
    body: parsed.kind === 'json' ? parsed.value : null,
  });

  const rule = state.faults.take({ number, path: pathname, models: modelsOf(parsed) });
  if (rule?.delayMs !== undefined) {
    try {
      await delay(rule.delayMs, undefined, { signal: settings.signal });
    } catch {
      return;
    }
    if (request.socket.destroyed) return;
  }
  const faulted = faultReply(rule, { number, model: modelOf(parsed) });
  if (faulted === 'reset') {
    request.socket.resetAndDestroy();
    return;
  }
  const reply =
    faulted ??
    alterAnswer(rule, answer(state, settings, request, { method, pathname, number, parsed, rule }));
  await deliverReply(response, reply, deliveryOf(rule), settings.signal);
}

interface RequestFacts {
  readonly method: string;
  readonly pathname: string;
  readonly number: number;
  readonly parsed: ParsedBody;
  readonly rule: FaultRule | null;
}

function answer(
  state: EmulatorState,
  settings: HandlerSettings,
  request: IncomingMessage,
  facts: RequestFacts,
): RouteResult {
  if (settings.key !== null) {
    const denied = checkAuthorization(request.headers.authorization, settings.key);
    if (denied !== null) return denied;
  }
  const routed = routeRequest(facts.method, facts.pathname, facts.parsed);
  if ('status' in routed) return routed;
  const outcome = validateChatRequest(routed.body, settings.modelRejection);
  if (!outcome.ok) return outcome.error;

  let answerTokens = settings.answerTokens;
  const header = request.headers[ANSWER_TOKENS_HEADER];
  if (header !== undefined) {
    answerTokens = Number(header);
    if (!Number.isInteger(answerTokens) || answerTokens < 1) {
      return invalidField(
        ANSWER_TOKENS_HEADER,
        `Header '${ANSWER_TOKENS_HEADER}' must be a positive integer`,
      );
    }
  }
  let emptyContent = facts.rule?.emptyContent === true;
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
  });
  return { status: 200, body };
}

function modelOf(parsed: ParsedBody): string | null {
  const model = parsed.kind === 'json' ? (parsed.value as { model?: unknown } | null)?.model : undefined;
  return typeof model === 'string' ? model : null;
}

function modelsOf(parsed: ParsedBody): string[] {
  const model = modelOf(parsed);
  if (model === null) return [];
  const resolved = resolveModelId(model);
  return resolved === null || resolved === model ? [model] : [model, resolved];
}
