import type { TransportRequest } from '@switchboard/adapter';
import { pricingKey, usageOfEvents } from './call-pricing.js';
import { requestHash } from './canonical-json.js';
import type { CassetteEntry } from './cassette-entry.js';
import { CassetteMissError } from './cassette-miss-error.js';
import { currentTestFile } from './current-test-file.js';
import { describeDifference, jsonDifferences } from './json-differences.js';
import { scrubJson } from './json-secrets.js';
import type { Cassette } from './read-cassette.js';
import { isStream } from './recorded-reply-kind.js';
import { type SecretRules, secretRules } from './secret-scan.js';
import { wireBody } from './wire-body.js';

/** Credential shapes only: what every request is scrubbed of before it is matched. */
const SHAPES_ONLY = secretRules([]);

/** What the replays of one cassette in one process share: which calls were taken, and from which recording processes. */
interface Consumption {
  readonly used: Set<number>;
  /** The recording processes whose calls this process took: preferred among identical requests. */
  readonly affinity: Set<string>;
  /** How many calls were taken: the next one is most likely its recording process's call number `taken + 1`. */
  taken: number;
}

const CONSUMPTION = Symbol.for('switchboard.cassette.replays');

/**
 * The consumption of this cassette file in this process, shared by every replay
 * of it (several resolutions replay identical requests in recorded order, not
 * each from the first); a file changed since is a new one.
 */
function consumptionOf(identity: string): Consumption {
  const holder = process as unknown as Record<symbol, Map<string, Consumption> | undefined>;
  let map = holder[CONSUMPTION];
  if (map === undefined) {
    map = new Map();
    holder[CONSUMPTION] = map;
  }
  let consumption = map.get(identity);
  if (consumption === undefined) {
    consumption = { used: new Set(), affinity: new Set(), taken: 0 };
    map.set(identity, consumption);
  }
  return consumption;
}

const SHOWN_DIFFERENCES = 8;

/** The calls of a cassette being replayed: which are left, in recorded order, and their pricing. */
export class ReplayState {
  readonly path: string;
  /** The key in use ('' none), or undefined when replay was not told (presence then not checked). Never shown. */
  readonly #key: string | undefined;
  /** The key as a secret (when long enough to be one): for a second try at matching, and for messages. */
  readonly #keyRules: SecretRules | null;
  readonly #entries: CassetteEntry[];
  readonly #byHash = new Map<string, CassetteEntry[]>();
  readonly #used: Set<number>;
  readonly #affinity: Set<string>;
  readonly #consumption: Consumption;
  /** Whether the progress is shared by every replay of the file in this process. */
  readonly #shared: boolean;
  readonly #pricing = new Map<string, Record<string, unknown>[]>();

  /** @param identity the file as read (path, inode, size, time): replays of the same file in a process share their progress. */
  constructor(cassette: Cassette, key: string | undefined, identity: string | null = null) {
    this.path = cassette.path;
    this.#key = key;
    const rules = secretRules(key === undefined ? [] : [key]);
    this.#keyRules = rules.keys.length > 0 ? rules : null;
    this.#entries = [...cassette.entries];
    for (const entry of this.#entries) this.#index(entry);
    const consumption =
      identity === null
        ? { used: new Set<number>(), affinity: new Set<string>(), taken: 0 }
        : consumptionOf(identity);
    this.#consumption = consumption;
    this.#shared = identity !== null;
    this.#used = consumption.used;
    this.#affinity = consumption.affinity;
  }

  /**
   * The normalised body of a request, scrubbed of credential shapes as recorded
   * ones are. Never of the key in use: its value (a placeholder such as `replay`)
   * is not compared and must not change the request.
   */
  bodyOf(request: TransportRequest, streamed: boolean): Record<string, unknown> {
    return scrubJson(wireBody(request, streamed), SHAPES_ONLY);
  }

  /** The body as shown in a miss: with the key removed too, when it is long enough to be a secret. */
  #shownBody(request: TransportRequest, streamed: boolean): Record<string, unknown> {
    const body = this.bodyOf(request, streamed);
    return this.#keyRules === null ? body : scrubJson(body, this.#keyRules);
  }

  /**
   * The first unreplayed recording of this request, taken; or null. Among
   * identical requests, one recorded by a process this process already took
   * calls from comes first, in recorded order (workers replay what they
   * recorded); else one recorded at this call's position; else the first in file order. A request that holds the key itself (recorded with it removed)
   * is matched with it removed when it matches nothing as it is.
   */
  take(request: TransportRequest, streamed: boolean): CassetteEntry | null {
    const body = this.bodyOf(request, streamed);
    let entry = this.#pick(requestHash(body));
    if (entry === undefined && this.#keyRules !== null) {
      entry = this.#pick(requestHash(scrubJson(body, this.#keyRules)));
    }
    if (entry === undefined) return null;
    this.#used.add(entry.call);
    if (entry.process !== undefined) this.#affinity.add(entry.process);
    this.#consumption.taken += 1;
    if (entry.pricing !== null) this.#queuePricing(request.model, entry);
    return entry;
  }

  #pick(hash: string): CassetteEntry | undefined {
    const fitting = (this.#byHash.get(hash) ?? []).filter((candidate) => this.#keyFits(candidate));
    let left = fitting.filter((candidate) => !this.#used.has(candidate.call));
    if (left.length === 0 && this.#shared && fitting.length > 0) {
      // Shared progress: a request made more often in this process than recorded (a second session
      // replaying the same calls) starts over from its first recording.
      for (const candidate of fitting) this.#used.delete(candidate.call);
      left = fitting;
    }
    // A replaying process most likely makes the calls of one recording process: among identical
    // requests, those of a process it already took calls from come first, in recorded order; with
    // none yet, the one its recording process made at this position (the processes' first calls are
    // often the same request), else the first.
    const known = left.find(
      (candidate) => candidate.process !== undefined && this.#affinity.has(candidate.process),
    );
    if (known !== undefined) return known;
    const next = this.#consumption.taken + 1;
    return left.find((candidate) => candidate.seq === next) ?? left[0];
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
    const body = this.#shownBody(request, streamed);
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
    // A miss in a test file is most likely one of its own calls changed: the nearest recording is
    // looked for among that file's recordings first, so another file's prompt is not named instead.
    const test = currentTestFile();
    const own = test === null ? [] : this.#entries.filter((entry) => entry.test === test);
    let nearest: CassetteEntry | null = null;
    let nearestDifferences: string[] = [];
    for (const entry of own.length > 0 ? own : this.#entries) {
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
            `${head}; the nearest recording is call ${nearest.call} (model ${JSON.stringify(nearest.request.model)}${nearest.test === undefined ? '' : `, made by ${JSON.stringify(nearest.test)}`}), ${differences.length} difference(s):`,
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
