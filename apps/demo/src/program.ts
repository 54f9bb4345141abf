import { Command, Option } from 'commander';
import { chatCommand } from './commands/chat.js';
import { costCommand } from './commands/cost.js';
import { demoCommand } from './commands/demo.js';
import { modelsCommand } from './commands/models.js';
import { pricesCommand } from './commands/prices.js';
import { resolveCommand } from './commands/resolve.js';
import type { Io } from './io.js';
import { loadConfig } from './load-config.js';

/** The CLI's version, kept in step with apps/demo/package.json by the build. */
declare const SWITCHBOARD_VERSION: string;

const configOption = () =>
  new Option('-c, --config <file>', 'a switchboard.toml ([models] keys) or JSON config file');

/** Builds the `switchboard` command tree; errors propagate to the caller, which decides the exit code. */
export function createProgram(io: Io): Command {
  const program = new Command('switchboard')
    .description('Resolve the chat endpoint, adapt its quirks, and know what every call cost.')
    .version(typeof SWITCHBOARD_VERSION === 'string' ? SWITCHBOARD_VERSION : '0.0.0')
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('demo')
    .description('run a multi-role session against the built-in emulator: no key, no network')
    .action(() => demoCommand(io));

  program
    .command('resolve')
    .description('show which rule resolved the chat endpoint, and its record as JSON')
    .addOption(configOption())
    .option('--json', 'print {rule, endpoint} as one JSON document')
    .action(async (options: { config?: string; json?: boolean }) => {
      resolveCommand(io, await loadConfig(options.config), options);
    });

  program
    .command('chat')
    .description('make one call through the resolved endpoint')
    .argument('<prompt>', 'the user message')
    .option('-m, --model <id>', 'model id (default: the detector model of the config)')
    .option('--json', 'JSON mode (response_format json_object)')
    .option('--logprobs', 'ask for logprobs and report the mean as a confidence')
    .option(
      '-t, --temperature <t>',
      'sampling temperature (0 to 2); ignored by the provider while thinking is on',
    )
    .option('--max-tokens <n>', 'cap the answer through a bounded, single-attempt copy')
    .option('--timeout <seconds>', 'per-attempt timeout in seconds (default 60)')
    .option('-r, --show-reasoning', 'print the reasoning the provider returned')
    .addOption(configOption())
    .action(async (prompt: string, options: Parameters<typeof chatCommand>[3] & { config?: string }) => {
      await chatCommand(io, prompt, await loadConfig(options.config), options);
    });

  program
    .command('prices')
    .description('print the price table (USD per million tokens)')
    .option('--json', 'print the table as JSON')
    .action((options: { json?: boolean }) => pricesCommand(io, options));

  program
    .command('models')
    .description("list the model ids the resolved endpoint's GET /models offers")
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      await modelsCommand(io, await loadConfig(options.config));
    });

  program
    .command('cost')
    .description('cost out a usage log: JSON Lines, one usage object per line')
    .argument('<file>', 'the usage log')
    .requiredOption('-m, --model <id>', 'the model whose prices apply')
    .action((file: string, options: { model: string }) => costCommand(io, file, options));

  return program;
}
