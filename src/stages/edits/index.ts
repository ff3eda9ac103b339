/** Edit samples from git history (or before/after rows): SEARCH/REPLACE blocks and git diffs, checked with `git apply`. */
export * from './git-diff.js';
export * from './git-apply.js';
export * from './history.js';
export * from './edit-sample.js';
