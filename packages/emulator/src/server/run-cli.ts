import { parseArgs } from 'node:util';
import { startEmulator } from './start-emulator.js';

/** Where the command line writes, and what stops it. */
export interface CliOptions {
  /** Receives normal output. Default: process.stdout. */
  readonly stdout?: { write(text: string): unknown };
  /** Receives error output. Default: process.stderr. */
  readonly stderr?: { write(text: string): unknown };
  /** Stops the emulator when aborted (the bin aborts it on SIGINT or SIGTERM). */
  readonly signal?: AbortSignal;
}

/** The text `switchboard-emulator --help` prints. */
export const CLI_USAGE = `Usage: switchboard-emulator [--port N] [--host H] [--key K] [--flavor F] [--strict-fields]

Runs a loopback emulator of the primary chat platform (or the gateway) until stopped (Ctrl-C).

Options:
  --port N     port to listen on (default 0: any free port)
  --host H     address to listen on (default 127.0.0.1); one that is not loopback is warned about
  --key K      require Authorization: Bearer K on every request
  --flavor F   primary (default) or gateway (routes under /api/v1)
  --strict-fields
               answer 400 to chat body fields OpenAI's API does not have (thinking, ...),
               as a strict OpenAI-compatible server does
  --help       print this help
`;

/** Whether `host` only listens on this machine: `localhost`, 127.0.0.0/8 or ::1. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/** Why listening failed, in one line: the address and the system's reason (`EADDRINUSE`, ...), no stack. */
function listenFailure(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the port is already in use (pick another with --port, or --port 0 for any free one)',
    EACCES: 'permission denied (ports below 1024 need privileges)',
    EADDRNOTAVAIL: "the address is not one of this machine's",
    ENOTFOUND: 'no such host',
  };
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const reason =
    (code === undefined ? undefined : reasons[code]) ??
    (error instanceof Error ? error.message : String(error));
  return `cannot listen on ${where}: ${reason}${code === undefined ? '' : ` (${code})`}`;
}

/**
 * Runs the `switchboard-emulator` command line: starts an emulator, prints its
 * address (never the key), and keeps it running until `signal` aborts, then
 * closes it. Resolves to the exit code: 0; 1 when it cannot listen (a port in
 * use: one line naming the address and why, no stack); 2 for bad arguments.
 */
export async function runCli(argv: readonly string[], options: CliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let values: {
    port?: string;
    host?: string;
    key?: string;
    flavor?: string;
    'strict-fields'?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        key: { type: 'string' },
        flavor: { type: 'string' },
        'strict-fields': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    stderr.write(
      `switchboard-emulator: ${error instanceof Error ? error.message : String(error)}\n${CLI_USAGE}`,
    );
    return 2;
  }
  if (values.help === true) {
    stdout.write(CLI_USAGE);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65_535) {
    stderr.write(`switchboard-emulator: --port must be an integer from 0 to 65535, got '${values.port}'\n`);
    return 2;
  }
  if (values.key === '') {
    stderr.write('switchboard-emulator: --key must not be empty\n');
    return 2;
  }
  const flavor = values.flavor ?? 'primary';
  if (flavor !== 'primary' && flavor !== 'gateway') {
    stderr.write(`switchboard-emulator: --flavor must be primary or gateway, got '${flavor}'\n`);
    return 2;
  }
  if (options.signal?.aborted === true) return 0;
  if (values.host !== undefined && !isLoopback(values.host)) {
    const keyed = values.key === undefined ? ', with no key (pass --key K to require one)' : '';
    stderr.write(
      `switchboard-emulator: warning: --host ${values.host} is not a loopback address: anyone who can reach this machine can call the emulator${keyed}\n`,
    );
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator({
      port,
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(values.key === undefined ? {} : { key: values.key }),
      flavor,
      strictFields: values['strict-fields'] === true,
    });
  } catch (error) {
    stderr.write(`switchboard-emulator: ${listenFailure(error, values.host ?? '127.0.0.1', port)}\n`);
    return 1;
  }
  const keyNote = values.key === undefined ? '' : ' (API key required)';
  const flavorNote = flavor === 'gateway' ? ' (gateway flavour)' : '';
  const strictNote = values['strict-fields'] === true ? ' (strict fields)' : '';
  stdout.write(`switchboard emulator listening on ${emulator.url}${flavorNote}${strictNote}${keyNote}\n`);
  await new Promise<void>((resolve) => {
    if (options.signal === undefined) return;
    if (options.signal.aborted) resolve();
    options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  stdout.write('switchboard emulator stopped\n');
  return 0;
}
