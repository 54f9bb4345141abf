#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { UNPRICED_MODEL_WARNING } from '@switchboard/adapter';
import { exitQuietlyOnClosedPipe } from './closed-pipe.js';
import { colorSupport } from './color-support.js';
import { main } from './main.js';

// The libraries' process warnings read as the CLI's own lines, not Node's `(node:PID) Warning:`
// form. An unpriced model is left out: `chat` reports it in its own words, on its cost line.
process.removeAllListeners('warning');
process.on('warning', (warning: Error & { code?: string }) => {
  if (warning.code === UNPRICED_MODEL_WARNING) return;
  process.stderr.write(`switchboard: warning: ${warning.message}\n`);
});

exitQuietlyOnClosedPipe(process.stdout, process.stderr);

process.exitCode = await main(process.argv.slice(2), {
  stdout: (output) => process.stdout.write(output),
  stderr: (output) => process.stderr.write(output),
  env: process.env,
  color: colorSupport(process.stdout, process.env),
  errorColor: colorSupport(process.stderr, process.env),
  stderrIsTty: process.stderr.isTTY === true,
  columns: process.stdout.columns,
  readStdin: () => text(process.stdin),
});
