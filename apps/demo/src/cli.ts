#!/usr/bin/env node
import { main } from './main.js';

const color = Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env);
process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  color,
});
