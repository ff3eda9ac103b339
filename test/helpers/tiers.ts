/**
 * The two test tiers (README, "Tests"). `npm test` runs every test: CI runs it, run it before a
 * commit leaves your machine. `npm run test:quick` sets MIDPACK_TEST_QUICK=1 and skips the tests
 * marked slow, for the edit-test loop (under 90 s on a 2-core machine).
 *
 * Mark a test slow when it takes more than about a second on its own (`node --test FILE` prints
 * each test's time):
 *
 *   import { slow } from '../helpers/tiers.js';
 *   test('pack: killed at several points, then rerun, ends with the same bytes', slow, async () => { ... });
 *   test('npm pack ... installs', { ...slow, timeout: 600_000 }, (t) => { ... });
 *
 * A slow test still runs in `npm test`: marking it never hides a failure from CI. Before marking a
 * test slow, make it cheaper where the assurance does not depend on the size (a seeded sample,
 * one corpus or tokenizer shared by the tests of a file).
 */
export const quick = process.env.MIDPACK_TEST_QUICK === '1';

/** Test options: skipped under `npm run test:quick`, run by `npm test`. */
export const slow: { skip: string | false } = { skip: quick ? 'slow: npm run test:quick skips it, npm test runs it' : false };
