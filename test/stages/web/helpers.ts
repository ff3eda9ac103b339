import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Doc } from '../../../src/doc/document.js';
import { collect, defaultContext, type StageContext } from '../../../src/core/stage.js';
import { readWebInputs } from '../../../src/stages/web/sources.js';
import { rewriteWeb, type RewriteWebOptions } from '../../../src/stages/web/stage.js';

/** Compiled tests live in dist/test/stages/web: the repository root is four levels up. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const fixtureDir = join(repoRoot, 'test', 'fixtures', 'web');
const sharedCandidates = [join(repoRoot, '..', 'shared'), '/work/shared'];
export const devSetDir = sharedCandidates.map((d) => join(d, 'data', 'readability-test-pages')).find((d) => existsSync(d));

export function quietContext(seed = 0): StageContext {
  return defaultContext({ seed, log: () => {} });
}

/** Reads inputs and runs the stage, returning the documents and the context. */
export async function runWeb(inputs: string[], options: RewriteWebOptions = {}, seed = 0): Promise<{ docs: Doc[]; ctx: StageContext }> {
  const ctx = quietContext(seed);
  const docs = await collect(rewriteWeb(options)(readWebInputs(inputs, ctx, { maxPageBytes: 64 << 20 }), ctx));
  return { docs, ctx };
}
