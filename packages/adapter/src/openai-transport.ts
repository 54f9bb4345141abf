import { FetchTransport } from './fetch-transport.js';

/**
 * The former name of {@link FetchTransport}, kept so nothing breaks: the same
 * transport (requests built with `fetch` directly, the `openai` SDK's wire byte for
 * byte), shown as `OpenAITransport`. New code names `FetchTransport`.
 */
export class OpenAITransport extends FetchTransport {}
