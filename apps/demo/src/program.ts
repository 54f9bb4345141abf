import { Command, Option } from 'commander';
import { addBudgetCommand } from './commands/budget-show.js';
import {
  type CassetteShowOptions,
  cassetteCheckCommand,
  cassetteDiffCommand,
  cassetteShowCommand,
} from './commands/cassette.js';
import { chatCommand } from './commands/chat.js';
import { costCommand } from './commands/cost.js';
import { type DemoCommandOptions, demoCommand } from './commands/demo.js';
import { modelsCommand } from './commands/models.js';
import { pricesCommand } from './commands/prices.js';
import { addPricesCheckCommand } from './commands/prices-check-command.js';
import { type ReportCommandOptions, reportCommand } from './commands/report.js';
import { resolveCommand } from './commands/resolve.js';
import { HELP_FOOTER } from './help-footer.js';
import type { Io } from './io.js';
import { loadCliConfig } from './load-config.js';

/** The CLI's version, kept in step with apps/demo/package.json by the build. */
declare const SWITCHBOARD_VERSION: string;

const configOption = () =>
  new Option(
    '-c, --config <file>',
    'a switchboard.toml ([models] keys) or JSON config file (default: ./switchboard.toml when there is one)',
  );
const strictOption = () =>
  new Option('--strict', 'make config warnings (unknown keys, keys outside [models]) errors, exit 2');
const jsonOption = () => new Option('--json', 'print machine-readable JSON on stdout');

interface ConfigOptions {
  config?: string;
  strict?: boolean;
}

/** Builds the `switchboard` command tree; errors propagate to the caller, which decides the exit code. */
export function createProgram(io: Io): Command {
  const loaded = (options: ConfigOptions) =>
    loadCliConfig(options.config, {
      strict: options.strict,
      warn: (text) => io.stderr(`switchboard: ${text}\n`),
    });
  const config = async (options: ConfigOptions) => (await loaded(options)).config;

  const program = new Command('switchboard')
    .description('Resolve the chat endpoint, adapt its quirks, and know what every call cost.')
    .version(typeof SWITCHBOARD_VERSION === 'string' ? SWITCHBOARD_VERSION : '0.0.0')
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      // One prefix for every bad input: commander's own "error: " becomes "switchboard: ".
      outputError: (text, write) => write(text.replace(/^error: /, 'switchboard: ')),
    })
    .exitOverride()
    .addHelpText('after', HELP_FOOTER)
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('demo')
    .description('run a multi-role session against the built-in emulator: no key, no network')
    .addOption(jsonOption())
    .option(
      '--journal <file>',
      "append the session's call records to this journal; - writes them to stdout (default: a new file under the OS temp directory)",
    )
    .action((options: DemoCommandOptions) => demoCommand(io, options));

  program
    .command('resolve')
    .description('show which rule resolved the chat endpoint, and its record as JSON')
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (options: ConfigOptions & { json?: boolean }) => {
      resolveCommand(io, await loaded(options), options);
    });

  program
    .command('chat')
    .description('make one call through the resolved endpoint')
    .argument('<prompt>', "the user message; '-' reads it from stdin")
    .option('-m, --model <id>', 'model id (default: the detector model of the config)')
    .addOption(jsonOption())
    .option('--json-mode', 'ask for a JSON reply (response_format json_object)')
    .option('--logprobs', 'ask for logprobs and report the mean as a confidence')
    .option(
      '-t, --temperature <t>',
      'sampling temperature (0 to 2); ignored by the provider while thinking is on',
    )
    .option('--max-tokens <n>', 'cap the answer through a bounded, single-attempt copy')
    .option('--timeout <seconds>', 'per-attempt timeout in seconds (default 60)')
    .option('-r, --show-reasoning', 'print the reasoning the provider returned')
    .option(
      '-s, --stream',
      'print the answer as it arrives (reasoning dimmed on a terminal); with --json, NDJSON deltas then the record',
    )
    .addOption(configOption())
    .addOption(strictOption())
    .action(async (prompt: string, options: Parameters<typeof chatCommand>[3] & ConfigOptions) => {
      await chatCommand(io, prompt, await loaded(options), options);
    });

  const prices = program
    .command('prices')
    .description(
      'print the prices in force (USD per million tokens), with the config\'s [prices."id"] entries',
    )
    .option(
      '--at <time>',
      'the prices in force at this ISO time, e.g. 2026-06-03T10:00:00+08:00 (default now)',
    )
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (options: ConfigOptions & { json?: boolean; at?: string }) => {
      pricesCommand(io, options, await loaded(options));
    });
  addPricesCheckCommand(prices, io, loaded);

  program
    .command('models')
    .description("list the model ids the resolved endpoint's GET /models offers")
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (options: ConfigOptions & { json?: boolean }) => {
      await modelsCommand(io, await config(options), options);
    });

  program
    .command('cost')
    .description('cost out a usage log: JSON Lines, one usage object or call record per line')
    .argument('<file>', 'the usage log; - reads stdin')
    .option('-m, --model <id>', 'the model of lines without their own "model" field')
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (file: string, options: ConfigOptions & { model?: string; json?: boolean }) => {
      await costCommand(io, file, options, await loaded(options));
    });

  program
    .command('report')
    .description(
      "report a run's journal: cost and calls by role, model and endpoint, cache, errors, spend over time",
    )
    .argument(
      '<journal...>',
      'journal files (JSON Lines, one call record per line), e.g. from demo --journal; - reads stdin; several, a folder (its *.jsonl) or a glob: reported as one, each call once, with totals by host',
    )
    .option(
      '--since <time>',
      'only calls at or after this time: an ISO date or time (2026-11-23, 2026-11-23T09:00:00Z); without a zone it is UTC',
    )
    .option('--until <time>', 'only calls before this time (same forms as --since; UTC without a zone)')
    .option(
      '--html <file>',
      'also write the report as one self-contained HTML page (charts, no network) to this file; - writes it to stdout instead of the text',
    )
    .option(
      '--verify',
      "verify every line: its cost re-derived with the installed price data, its facts, its place in its process's numbering (none missing, repeated or out of order), budget limits; exit 1 naming each line that is wrong or cannot be verified",
    )
    .option(
      '--allow-unverifiable',
      'with --verify: accept lines it cannot verify (unreadable, without a number, priced by an entry no longer installed, estimates), still naming why and how many',
    )
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (journals: string[], options: ReportCommandOptions & ConfigOptions) =>
      reportCommand(io, journals, options, await loaded(options)),
    );

  const cassette = program
    .command('cassette')
    .description(
      'look into recorded cassettes: show their calls, diff two recordings, check one before a commit',
    );
  cassette
    .command('show')
    .description('a table of the calls: model, outcome, attempts, tokens and the recorded cost')
    .argument('<file>', 'the cassette (JSON Lines)')
    .option('--reprice', "add what each call costs at today's prices")
    .addOption(configOption())
    .addOption(strictOption())
    .addOption(jsonOption())
    .action(async (file: string, options: CassetteShowOptions & ConfigOptions) => {
      cassetteShowCommand(io, file, options, options.reprice ? await loaded(options) : null);
    });
  cassette
    .command('diff')
    .description('which calls were added or removed and whose request or reply changed (exit 1 when any)')
    .argument('<a>', 'the earlier cassette')
    .argument('<b>', 'the later cassette')
    .addOption(jsonOption())
    .action((first: string, second: string, options: { json?: boolean }) =>
      cassetteDiffCommand(io, first, second, options),
    );
  cassette
    .command('check')
    .description(
      "for a pre-commit hook: every line readable, no secret, every recorded cost what the call's usage costs at the prices in force (exit 1 when a problem is found, 2 when a file is not a cassette)",
    )
    .argument('<files...>', 'the cassettes')
    .addOption(configOption())
    .addOption(strictOption())
    .action(async (files: string[], options: ConfigOptions) =>
      cassetteCheckCommand(io, files, await loaded(options)),
    );

  addBudgetCommand(program, io);

  return program;
}
