import type { TransportRequest } from '@switchboard/adapter';
import { pricingKey, usageOfEvents } from './call-pricing.js';
import { requestHash } from './canonical-json.js';
import type { CassetteEntry } from './cassette-entry.js';
import { CassetteMissError } from './cassette-miss-error.js';
import { describeDifference, jsonDifferences } from './json-differences.js';
import type { Cassette } from './read-cassette.js';
import { isStream } from './recorded-reply-kind.js';
import { scrubSecrets } from './scrub-secrets.js';
import { wireBody } from './wire-body.js';

const SHOWN_DIFFERENCES = 8;

/** The calls of a cassette being replayed: which are left, in recorded order, and their pricing. */
export class ReplayState {
  readonly path: string;
  /** The key in use ('' none), or undefined when replay was not told (presence then not checked). Never shown. */
  readonly #key: string | undefined;
  readonly #entries: CassetteEntry[];
  readonly #byHash = new Map<string, CassetteEntry[]>();
  readonly #used = new Set<number>();
  readonly #pricing = new Map<string, Record<string, unknown>[]>();

  constructor(cassette: Cassette, key: string | undefined) {
    this.path = cassette.path;
    this.#key = key;
    this.#entries = [...cassette.entries];
    for (const entry of this.#entries) this.#index(entry);
  }

  /** The normalised, scrubbed body of a request, as recorded ones are kept. */
  bodyOf(request: TransportRequest, streamed: boolean): Record<string, unknown> {
    return scrubSecrets(wireBody(request, streamed), this.#key ?? '');
  }

  /** The first unreplayed recording of this request, taken; or null. */
  take(request: TransportRequest, streamed: boolean): CassetteEntry | null {
    const body = this.bodyOf(request, streamed);
    const entry = (this.#byHash.get(requestHash(body)) ?? []).find(
      (candidate) => !this.#used.has(candidate.call) && this.#keyFits(candidate),
    );
    if (entry === undefined) return null;
    this.#used.add(entry.call);
    if (entry.pricing !== null) this.#queuePricing(request.model, entry);
    return entry;
  }

  /** An entry appended by pass-through: known from now on, already replayed. */
  appended(entry: CassetteEntry): void {
    this.#entries.push(entry);
    this.#index(entry);
    this.#used.add(entry.call);
  }

  /** The recorded pricing of the next replayed call with this model and usage, or null. */
  takePricing(model: string, usage: unknown): Record<string, unknown> | null {
    return this.#pricing.get(pricingKey(model, usage))?.shift() ?? null;
  }

  /** How many calls the cassette holds. */
  get size(): number {
    return this.#entries.length;
  }

  /** The error for a request with no recording left: the nearest recorded request and how this one differs. */
  miss(request: TransportRequest, streamed: boolean): CassetteMissError {
    const body = this.bodyOf(request, streamed);
    const hash = requestHash(body);
    const same = this.#byHash.get(hash) ?? [];
    const head = `no recording in the cassette ${this.path} answers this request (model ${JSON.stringify(body.model)}, ${request.messages.length} messages${streamed ? ', streamed' : ''}); nothing was sent`;
    if (same.length > 0) {
      const fitting = same.filter((entry) => this.#keyFits(entry));
      const differences =
        fitting.length === 0
          ? [
              `key: recorded ${presence(same[0]?.key)}, now ${presence(this.#key === undefined ? null : this.#key !== '')}`,
            ]
          : [
              `repeats: the request was recorded ${same.length} time(s) (calls ${same.map((entry) => entry.call).join(', ')}), all replayed already`,
            ];
      return this.#error(head, same[0] ?? null, differences);
    }
    let nearest: CassetteEntry | null = null;
    let nearestDifferences: string[] = [];
    for (const entry of this.#entries) {
      const differences = jsonDifferences(entry.request, body).map((difference) =>
        describeDifference(difference),
      );
      if (nearest === null || differences.length < nearestDifferences.length) {
        nearest = entry;
        nearestDifferences = differences;
      }
    }
    return this.#error(head, nearest, nearestDifferences);
  }

  #error(head: string, nearest: CassetteEntry | null, differences: string[]): CassetteMissError {
    const shown = differences.slice(0, SHOWN_DIFFERENCES);
    const more = differences.length - shown.length;
    const lines =
      nearest === null
        ? [`${head}; the cassette holds no calls`]
        : [
            `${head}; the nearest recording is call ${nearest.call} (model ${JSON.stringify(nearest.request.model)}), ${differences.length} difference(s):`,
            ...shown.map((line) => `  ${line}`),
            ...(more > 0 ? [`  ... and ${more} more`] : []),
          ];
    return new CassetteMissError({
      message: lines.join('\n'),
      path: this.path,
      nearestCall: nearest?.call ?? null,
      differences,
    });
  }

  #keyFits(entry: CassetteEntry): boolean {
    return this.#key === undefined || entry.key === null || entry.key === (this.#key !== '');
  }

  #index(entry: CassetteEntry): void {
    // The hash is made again from the request as kept: a hand-edited request is matched as it now reads.
    const hash = requestHash(entry.request);
    const list = this.#byHash.get(hash);
    if (list) list.push(entry);
    else this.#byHash.set(hash, [entry]);
  }

  #queuePricing(model: string, entry: CassetteEntry): void {
    const usage = isStream(entry.reply)
      ? usageOfEvents(entry.reply.events)
      : (entry.reply as { body?: { usage?: unknown } }).body?.usage;
    const key = pricingKey(model, usage ?? null);
    const queue = this.#pricing.get(key);
    if (queue) queue.push(entry.pricing as Record<string, unknown>);
    else this.#pricing.set(key, [entry.pricing as Record<string, unknown>]);
  }
}

function presence(key: boolean | null | undefined): string {
  if (key === null || key === undefined) return 'unknown';
  return key ? 'with a key' : 'without a key';
}
