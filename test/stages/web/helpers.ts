import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { collect, defaultContext, type StageContext } from '../../../src/core/stage.js';
import { readWebInputs } from '../../../src/stages/web/sources.js';
import { rewriteWeb, type RewriteWebOptions } from '../../../src/stages/web/stage.js';

import { repoRoot, readabilityPages } from '../../helpers/paths.js';

export { repoRoot };
export const fixtureDir = join(repoRoot, 'test', 'fixtures', 'web');
export const devSetDir = existsSync(readabilityPages) ? readabilityPages : undefined;

export function quietContext(seed = 0): StageContext {
  return defaultContext({ seed, log: () => {} });
}

/** Reads inputs and runs the stage, returning the documents and the context. */
export async function runWeb(inputs: string[], options: RewriteWebOptions = {}, seed = 0): Promise<{ docs: Doc[]; ctx: StageContext }> {
  const ctx = quietContext(seed);
  const docs = await collect(rewriteWeb(options)(readWebInputs(inputs, ctx, { maxPageBytes: 64 << 20 }), ctx));
  return { docs, ctx };
}
