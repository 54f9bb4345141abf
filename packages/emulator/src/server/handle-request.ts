import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { RequestMeter } from '../billing/request-meter.js';
import { applyFault } from '../faults/apply-fault.js';
import { basePathOf } from '../gateway/emulator-flavor.js';
import { apiError } from '../http/api-error.js';
import { deliverReply } from '../http/deliver-reply.js';
import { sendResult } from '../http/route-result.js';
import { type AnswerSettings, answerRequest } from './answer-request.js';
import type { EmulatorState } from './emulator-state.js';
import { type RequestFacts, recordRequest } from './record-request.js';

/** Fixed settings of a request handler. */
export interface HandlerSettings extends AnswerSettings {
  /** Aborted when the emulator closes, ending pending delays and endless bodies. */
  readonly signal: AbortSignal;
}

/** The emulator's request listener: record, apply the fault plan, then answer (and bill chat requests). */
export function createRequestHandler(state: EmulatorState, settings: HandlerSettings): RequestListener {
  const chatPath = `${basePathOf(settings.flavor)}/chat/completions`;
  return (request, response) => {
    state.requestStarted();
    const chat = request.method === 'POST' && (request.url ?? '/').split('?')[0] === chatPath;
    const meter = chat ? new RequestMeter(state.bill.open()) : null;
    response.once('close', () => {
      meter?.ended();
      state.requestEnded();
    });
    handle(state, settings, request, response, meter).catch((error: unknown) => {
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
  meter: RequestMeter | null,
): Promise<void> {
  const facts = await recordRequest(state, request, {
    maxBytes: settings.maxRequestBytes,
    flavor: settings.flavor,
  });
  meter?.asked(facts.models.at(-1) ?? '', streamAsked(facts));
  const rule = state.faults.take({
    number: facts.number,
    path: facts.pathname,
    route: facts.route,
    models: facts.models,
  });
  const fault = await applyFault(rule, facts, request.socket, settings.signal);
  if (fault.kind === 'done') return;
  if (fault.kind === 'reply') {
    if (rule?.errorInBody?.withChoices === true) meter?.failedEmpty();
    else meter?.refused();
    await deliverReply(response, fault.reply, fault.delivery, settings.signal);
    return;
  }
  const result = answerRequest(state, settings, request, facts, rule?.emptyContent === true);
  const reply = fault.alter(result);
  meter?.answered(result.generation, reply);
  await deliverReply(response, reply, fault.delivery, settings.signal, meter ?? undefined);
  meter?.ended();
}

function streamAsked(facts: RequestFacts): boolean {
  const body = facts.parsed.kind === 'json' ? facts.parsed.value : null;
  return body !== null && typeof body === 'object' && (body as { stream?: unknown }).stream === true;
}
