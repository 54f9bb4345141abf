#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { colorSupport } from './color-support.js';
import { main } from './main.js';

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
