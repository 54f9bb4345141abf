import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full garbage collection, for what is kept rather than what is not yet collected
// (as packages/adapter's endless-body memory test does).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * The least JS heap seen over a few full collections a moment apart: what is
 * kept, whatever garbage a collection has not released yet.
 */
export async function heapAfterGc(): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 6; round += 1) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 20));
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}
