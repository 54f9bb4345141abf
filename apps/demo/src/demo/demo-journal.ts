import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallObserver, CallRecord } from '@switchboard/adapter';
import { CallJournal, type EndpointInfo } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { fileErrorReason } from '../read-input-file.js';
import { safeText } from '../terminal-text.js';

/** The journal of one demo session and where its calls begin. */
export interface DemoJournal {
  readonly journal: CallJournal;
  /** The observer to attach: journals each call, tagged with {@link DemoJournal.role} when it has none. */
  readonly observer: CallObserver;
  readonly path: string;
  /** When the session began (epoch ms): a journal given with `--journal` may hold earlier runs. */
  readonly since: number;
  /** The step now running; its calls are journaled under this role. */
  role: string | null;
}

/**
 * Opens the demo session's journal: `path` (appended to, like any journal), or
 * `journal.jsonl` in a new directory under the OS temp directory. A path that
 * cannot be opened exits 2 naming `--journal`; a failed write is a warning. Each line
 * names the budget scopes its call was charged to, with their limits: the adapter's record
 * carries them (`CallRecord.budgets`), so `report --verify` checks them with no annotation.
 */
export function openDemoJournal(io: Io, endpoint: EndpointInfo, path: string | undefined): DemoJournal {
  const file = path ?? join(mkdtempSync(join(tmpdir(), 'switchboard-demo-')), 'journal.jsonl');
  const since = Date.now();
  try {
    const journal = new CallJournal(file, {
      endpoint,
      warn: (message) => io.stderr(`switchboard: warning: ${safeText(message)}\n`),
    });
    const session: DemoJournal = {
      journal,
      path: file,
      since,
      role: null,
      // The demo's steps share one adapter; a pipeline would give each its adapter.forRole(role) view.
      observer: {
        afterCall: (record: CallRecord) => {
          journal.afterCall({ ...record, role: record.role ?? session.role });
        },
      },
    };
    return session;
  } catch (error) {
    throw new CliError(
      `--journal: cannot open the journal for writing: ${fileErrorReason(error, 'failed')}: ${file}${
        (error as NodeJS.ErrnoException | undefined)?.code === 'ENXIO'
          ? ' (a socket cannot be opened by path: --journal - writes to stdout)'
          : ''
      }`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}
