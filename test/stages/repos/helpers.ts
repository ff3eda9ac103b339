import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { collect, defaultContext, type StageContext } from '../../../src/core/stage.js';
import { serializeRepos, type SerializeOptions } from '../../../src/stages/repos/index.js';

export function tempDir(prefix = 'midpack-repos-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes files (path → content) under root, creating folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

export async function serialize(inputs: string[], options: Partial<SerializeOptions> = {}, seed = 7): Promise<{ docs: Doc[]; ctx: StageContext }> {
  const ctx = defaultContext({ seed, log: () => {} });
  const docs = await collect(serializeRepos(inputs, options, ctx));
  return { docs, ctx };
}
