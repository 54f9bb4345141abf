import { ConfigError } from './config-error.js';
import type { Environment } from './environment.js';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import type { ResolutionRule, ResolvedChatEndpoint } from './resolved-chat-endpoint.js';

/**
 * What one rule made of the configuration and environment: `skipped` (the next rule
 * is tried), `resolved`, `refused` (a `ConfigError`: resolution throws it) or
 * `failed` (rule 6 could not build its client: resolution gives null).
 */
export type RuleStep =
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'skipped';
      readonly reason: string;
      /** The reason deserves a warning whatever resolves next (an unrecognised scripted flag). */
      readonly warns?: boolean;
    }
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'resolved';
      readonly reason: string;
      readonly resolved: ResolvedChatEndpoint;
      /** Things worth a warning although the rule resolved, e.g. a named key variable that is unset. */
      readonly warnings: readonly string[];
    }
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'refused';
      readonly reason: string;
      readonly error: ConfigError;
    }
  | { readonly rule: ResolutionRule; readonly outcome: 'failed'; readonly reason: string };

/** What every rule reads: the environment (never mutated) and the caller's options. */
export interface RuleContext {
  readonly environment: Environment;
  readonly options: ResolveChatEndpointOptions;
}

/** A `refused` step carrying the `ConfigError` resolution throws. */
export function refused(rule: ResolutionRule, message: string, path: string): RuleStep {
  return { rule, outcome: 'refused', reason: message, error: new ConfigError(message, { path }) };
}
