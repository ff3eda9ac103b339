import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** The repository root (tests run from dist/test/...). */
export const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
/** ../shared beside the checkout: SPEC, reference and the development data sets. */
export const sharedDir = resolve(repoRoot, '..', 'shared');
export const readabilityPages = resolve(sharedDir, 'data', 'readability-test-pages');
