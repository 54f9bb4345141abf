import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key and a certificate for `127.0.0.1` and `localhost`, signed by itself. */
export interface SelfSigned {
  readonly key: string;
  readonly cert: string;
}

/**
 * A fresh self-signed certificate made with `openssl` (valid one day), or null when `openssl`
 * is not installed: the TLS tests are then skipped, saying why.
 */
export function selfSigned(): SelfSigned | null {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(folder, 'key.pem'), 'utf8'),
      cert: readFileSync(join(folder, 'cert.pem'), 'utf8'),
    };
  } catch {
    return null;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
