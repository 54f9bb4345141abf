import type { Io } from '../io.js';

const DEFAULT_WIDTH = 80;

/** The columns a report may fill: the terminal's, else `COLUMNS`, else 80. */
export function reportWidth(io: Io): number {
  if (io.columns !== undefined && io.columns > 0) return io.columns;
  const columns = Number(io.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : DEFAULT_WIDTH;
}
