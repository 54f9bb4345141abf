import {
  FetchTransport,
  NodeTransport,
  type NodeTransportOptions,
  type OpenAITransportOptions,
} from '../../src/index.js';

/** The options both wire transports take (a given `fetch` is FetchTransport's alone). */
export type WireTransportOptions = Omit<OpenAITransportOptions, 'fetch'> & Pick<NodeTransportOptions, 'ca'>;

/** One of the transports the wire suites run against: its name and how to make one. */
export interface WireTransportCase {
  readonly name: 'FetchTransport' | 'NodeTransport';
  make(options: WireTransportOptions): FetchTransport | NodeTransport;
}

/**
 * The two transports that put requests on the wire themselves: every transport-level suite
 * runs against both (`describe.each(WIRE_TRANSPORTS)`). NodeTransport is made with an empty
 * environment, so a proxy set on the machine running the tests changes nothing.
 */
export const WIRE_TRANSPORTS: readonly WireTransportCase[] = [
  {
    name: 'FetchTransport',
    make: ({ ca: _ca, ...options }) => new FetchTransport(options),
  },
  {
    name: 'NodeTransport',
    make: (options) => new NodeTransport({ env: {}, ...options }),
  },
];
