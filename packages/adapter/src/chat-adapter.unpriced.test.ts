import { describe, expect, it } from 'vitest';
import { collectWarnings, warningsWithCode } from '../test/support/process-warnings.js';
import { answer, RawTransport } from '../test/support/raw-transport.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CostModel } from './cost-model.js';
import { UNPRICED_MODEL_WARNING } from './unpriced-warning.js';

const usage = { prompt_tokens: 120, completion_tokens: 30 };
const pricesNothing: CostModel = { cost: () => null };
const pricesEverything: CostModel = { cost: () => 0.000047079999999999996 };

async function callsOn(costModel: CostModel | null, models: readonly string[]): Promise<void> {
  const adapter = new ChatAdapter(new RawTransport(models.map(() => answer('ok', usage))), {
    endpoint: costModel,
  });
  for (const model of models) await adapter.complete({ model, messages: [{ role: 'user', content: 'hi' }] });
  await new Promise((resolve) => setImmediate(resolve));
}

describe('ChatAdapter with a model nothing prices', () => {
  it('warns once per model per process, naming the model and how to price it', async () => {
    const warnings = collectWarnings();
    await callsOn(pricesNothing, ['lab-model-a', 'lab-model-a', ' lab-model-b ', 'lab-model-a']);
    // A second adapter in the same process does not say it again.
    await callsOn(pricesNothing, ['lab-model-b', 'lab-model-a']);

    const unpriced = warningsWithCode(warnings, UNPRICED_MODEL_WARNING);
    expect(unpriced.map((warning) => warning.message.match(/"([^"]+)"/)?.[1])).toEqual([
      'lab-model-a',
      'lab-model-b',
    ]);
    const [first] = unpriced;
    expect(first?.message).toContain('no price for model "lab-model-a": its calls count 0 USD');
    expect(first?.message).toContain('[prices."lab-model-a"] in switchboard.toml');
    expect(first?.message).toContain('PriceBook');
  });

  it('says nothing when the call was priced, or when no cost model was asked for', async () => {
    const warnings = collectWarnings();
    await callsOn(pricesEverything, ['lab-model-c']);
    await callsOn(null, ['lab-model-d']);
    expect(warningsWithCode(warnings, UNPRICED_MODEL_WARNING)).toEqual([]);
  });
});
