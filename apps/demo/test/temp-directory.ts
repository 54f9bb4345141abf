import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A temporary directory for the current test file, made before its tests and removed after them. */
export function tempDirectory(prefix: string) {
  let directory = '';
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));
  return {
    /** The directory's path (set once the tests run). */
    get path(): string {
      return directory;
    },
    /** Writes `text` to `name` in the directory and returns its path. */
    async file(name: string, text: string): Promise<string> {
      const path = join(directory, name);
      await writeFile(path, text);
      return path;
    },
  };
}
