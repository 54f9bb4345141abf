/**
 * A cassette write was refused because the line would have stored the API key
 * (for example base64-encoded in a reply) or a credential-shaped value. Nothing
 * was written; the message says where, never what.
 */
export class CassetteSecretError extends Error {
  override readonly name = 'CassetteSecretError';
  /** The cassette file that was not written. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}
