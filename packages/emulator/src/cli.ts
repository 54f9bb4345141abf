#!/usr/bin/env node
import { runCli } from './server/run-cli.js';

// The bin: SIGINT and SIGTERM stop the emulator cleanly, then the process exits on its own.
const controller = new AbortController();
const stop = (): void => controller.abort();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
process.exitCode = await runCli(process.argv.slice(2), { signal: controller.signal });
process.off('SIGINT', stop);
process.off('SIGTERM', stop);
