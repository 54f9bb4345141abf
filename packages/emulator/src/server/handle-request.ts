import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { applyFault } from '../faults/apply-fault.js';
import { apiError } from '../http/api-error.js';
import { deliverReply } from '../http/deliver-reply.js';
import { sendResult } from '../http/route-result.js';
import { type AnswerSettings, answerRequest } from './answer-request.js';
import type { EmulatorState } from './emulator-state.js';
import { recordRequest } from './record-request.js';

/** Fixed settings of a request handler. */
export interface HandlerSettings extends AnswerSettings {
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
  const facts = await recordRequest(state, request, {
    maxBytes: settings.maxRequestBytes,
    flavor: settings.flavor,
  });
  const rule = state.faults.take({
    number: facts.number,
    path: facts.pathname,
    route: facts.route,
    models: facts.models,
  });
  const fault = await applyFault(rule, facts, request.socket, settings.signal);
  if (fault.kind === 'done') return;
  const reply =
    fault.kind === 'reply'
      ? fault.reply
      : fault.alter(answerRequest(state, settings, request, facts, rule?.emptyContent === true));
  await deliverReply(response, reply, fault.delivery, settings.signal);
}
