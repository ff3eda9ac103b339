import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** The repository root (tests run from dist/test/...). */
export const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
/**
 * shared/ (SPEC, reference, development data) beside the checkout, as CI lays it out; the
 * workplace's copy when the checkout is elsewhere.
 */
export const sharedDir = [resolve(repoRoot, '..', 'shared'), '/work/shared'].find((d) => existsSync(d)) ?? resolve(repoRoot, '..', 'shared');
export const readabilityPages = resolve(sharedDir, 'data', 'readability-test-pages');
