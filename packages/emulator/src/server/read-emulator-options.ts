import { EMULATOR_FLAVORS } from '../gateway/emulator-flavor.js';
import { DEFAULT_CACHE_MAX_BYTES } from '../tokens/prefix-cache.js';
import type { AnswerSettings } from './answer-request.js';
import type { EmulatorOptions } from './emulator-options.js';

/** The emulator's options, checked and with defaults applied. */
export interface EmulatorSettings {
  readonly port: number;
  readonly host: string;
  readonly settings: AnswerSettings & {
    readonly maxRecordedRequests: number;
    readonly maxRecordedBytes: number;
    readonly maxCacheBytes: number;
  };
}

const WORDINGS = ['listing', 'but-you-passed', 'not-exist'];

/**
 * Checks `options` and applies the defaults.
 *
 * @throws TypeError or RangeError naming the bad option and what was expected
 */
export function readEmulatorOptions(options: EmulatorOptions): EmulatorSettings {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`options.port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw new TypeError('options.host must be a non-empty string');
  if (options.key !== undefined && (typeof options.key !== 'string' || options.key === '')) {
    throw new TypeError('options.key must be a non-empty string when given');
  }
  const answerTokens = positiveInteger(options.answerTokens, 'answerTokens');
  const emptyJson = options.emptyJson;
  if (
    emptyJson !== undefined &&
    typeof emptyJson !== 'boolean' &&
    typeof emptyJson !== 'function' &&
    !Array.isArray(emptyJson) &&
    !(emptyJson instanceof Set)
  ) {
    throw new TypeError('options.emptyJson must be a boolean, an array or set of numbers, or a function');
  }
  const modelRejection = options.modelRejection ?? 'listing';
  if (!WORDINGS.includes(modelRejection)) {
    throw new TypeError(`options.modelRejection must be one of ${WORDINGS.join(', ')}`);
  }
  const flavor = options.flavor ?? 'primary';
  if (!EMULATOR_FLAVORS.includes(flavor)) {
    throw new TypeError(`options.flavor must be one of ${EMULATOR_FLAVORS.join(', ')}`);
  }
  if (options.strictFields !== undefined && typeof options.strictFields !== 'boolean') {
    throw new TypeError('options.strictFields must be a boolean');
  }
  return {
    port,
    host,
    settings: {
      flavor,
      key: options.key ?? null,
      emptyJson,
      answerTokens,
      modelRejection,
      strictFields: options.strictFields ?? false,
      maxRequestBytes: positiveInteger(options.maxRequestBytes, 'maxRequestBytes') ?? 8 * 1024 * 1024,
      maxRecordedRequests: positiveInteger(options.maxRecordedRequests, 'maxRecordedRequests') ?? 10_000,
      maxRecordedBytes: positiveInteger(options.maxRecordedBytes, 'maxRecordedBytes') ?? 64 * 1024 * 1024,
      maxCacheBytes: positiveInteger(options.maxCacheBytes, 'maxCacheBytes') ?? DEFAULT_CACHE_MAX_BYTES,
    },
  };
}

function positiveInteger(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`options.${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
