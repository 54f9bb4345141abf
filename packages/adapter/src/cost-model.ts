/** Turns one usage entry into USD; `ChatEndpoint` satisfies it. */
export interface CostModel {
  cost(usage: unknown): number | null;
}
