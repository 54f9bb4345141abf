/** A cassette file that cannot be read: the message names the file, the line and the field. */
export class CassetteFormatError extends Error {
  override readonly name = 'CassetteFormatError';
  /** The file. */
  readonly path: string;
  /** The 1-based line, or null for the file as a whole. */
  readonly line: number | null;

  constructor(path: string, line: number | null, message: string) {
    super(`${path}${line === null ? '' : `:${line}`}: ${message}`);
    this.path = path;
    this.line = line;
  }
}
