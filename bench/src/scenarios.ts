import { BASELINE, CLIENT_IDS, type ClientId } from './clients.js';
import { type BatchRunner, type Collection, median, roundOrder } from './measure.js';

/** One way of loading the clients: reply size and calls in flight. */
export interface Scenario {
  readonly id: string;
  readonly label: string;
  readonly size: 'small' | 'large';
  readonly concurrency: number;
  /** Calls per client per round. */
  readonly calls: number;
}

/** The three figures measured for a client, in one round or over all rounds. */
interface Figures {
  /** Median wall-clock microseconds of one call. */
  readonly medianMicros: number;
  /** CPU microseconds of this process per call. */
  readonly cpuMicrosPerCall: number;
  /** Completed calls per second of wall-clock time. */
  readonly callsPerSecond: number;
}

/** A metric of {@link Figures}. */
export type Metric = keyof Figures;

/** One client's figures in one scenario. */
interface ClientFigures extends Figures {
  readonly client: ClientId;
  readonly label: string;
  readonly calls: number;
  readonly averageContentChars: number;
  /** The figures of each measured round, in round order. */
  readonly rounds: Figures[];
  /**
   * Each figure as a ratio to the `openai` SDK's: the median over the rounds of
   * the ratio within the round (every round runs all clients back to back, so
   * a change in the machine's load between rounds cancels out).
   */
  readonly ratio: Figures;
}

/** A scenario's results. */
export interface ScenarioResult extends Scenario {
  readonly rounds: number;
  readonly clients: ClientFigures[];
}

/** The median over the rounds of `a`'s metric divided by `b`'s in the same round. */
export function pairedRatio(a: ClientFigures, b: ClientFigures, metric: Metric): number {
  return median(a.rounds.map((round, index) => round[metric] / (b.rounds[index]?.[metric] ?? Number.NaN)));
}

/**
 * Warms every client up, then runs `rounds` interleaved rounds: in each round
 * every client makes its batch of calls, in an order that changes per round.
 * Stops early (after at least one round) once `deadline` has passed. `collection`: how garbage
 * is collected before each batch (see {@link Collection}).
 */
export async function runScenario(
  scenario: Scenario,
  clients: readonly BatchRunner[],
  rounds: number,
  deadline: number,
  collection: Collection = 'full',
): Promise<ScenarioResult> {
  const warmUpCalls = Math.max(scenario.concurrency, Math.ceil(scenario.calls / 4));
  for (const client of clients) await client.batch(warmUpCalls, scenario.concurrency, collection);

  const latencies = new Map<ClientId, number[]>(clients.map((client) => [client.id, []]));
  const perRound = new Map<ClientId, Figures[]>(clients.map((client) => [client.id, []]));
  const totals = new Map(
    clients.map((client) => [client.id, { wallMs: 0, cpuMicros: 0, calls: 0, chars: 0 }]),
  );
  let measured = 0;
  for (let round = 0; round < rounds; round++) {
    if (round > 0 && performance.now() > deadline) break;
    for (const client of roundOrder(clients, round)) {
      const batch = await client.batch(scenario.calls, scenario.concurrency, collection);
      latencies.get(client.id)?.push(...batch.latenciesMs);
      perRound.get(client.id)?.push({
        medianMicros: median(batch.latenciesMs) * 1000,
        cpuMicrosPerCall: batch.cpuMicros / scenario.calls,
        callsPerSecond: scenario.calls / (batch.wallMs / 1000),
      });
      const total = totals.get(client.id);
      if (total) {
        total.wallMs += batch.wallMs;
        total.cpuMicros += batch.cpuMicros;
        total.calls += scenario.calls;
        total.chars += batch.contentChars;
      }
    }
    measured++;
  }

  const raw = clients.map((client) => {
    const total = totals.get(client.id) ?? { wallMs: 0, cpuMicros: 0, calls: 0, chars: 0 };
    return {
      client: client.id,
      label: client.label,
      calls: total.calls,
      medianMicros: median(latencies.get(client.id) ?? []) * 1000,
      cpuMicrosPerCall: total.cpuMicros / total.calls,
      callsPerSecond: total.calls / (total.wallMs / 1000),
      averageContentChars: total.chars / total.calls,
      rounds: perRound.get(client.id) ?? [],
      ratio: { medianMicros: 1, cpuMicrosPerCall: 1, callsPerSecond: 1 },
    };
  });
  const baseline = raw.find((figures) => figures.client === BASELINE);
  if (!baseline) throw new Error(`the baseline client ${BASELINE} did not run`);
  const figures = raw
    .map((row) => ({
      ...row,
      ratio: {
        medianMicros: pairedRatio(row, baseline, 'medianMicros'),
        cpuMicrosPerCall: pairedRatio(row, baseline, 'cpuMicrosPerCall'),
        callsPerSecond: pairedRatio(row, baseline, 'callsPerSecond'),
      },
    }))
    .sort((a, b) => CLIENT_IDS.indexOf(a.client) - CLIENT_IDS.indexOf(b.client));
  return { ...scenario, rounds: measured, clients: figures };
}
