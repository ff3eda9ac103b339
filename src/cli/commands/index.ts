import type { Command } from 'commander';
import { register as pack } from './pack.js';
import { register as compare } from './compare.js';
import { register as report } from './report.js';
import { register as inspect } from './inspect.js';
import { register as serializeRepos } from './serialize-repos.js';
import { register as rewriteWeb } from './rewrite-web.js';
import { register as fim } from './fim.js';
import { register as edits } from './edits.js';
import { register as mask } from './mask.js';
import { register as run } from './run.js';
import { register as merge } from './merge.js';
import { register as trajectories } from './trajectories.js';
import { register as hygiene } from './hygiene.js';
import { register as mixture } from './mixture.js';
import { register as synthQa } from './synth-qa.js';

/** Every subcommand registers itself; the CLI is a thin layer over the library in src/. */
export const commands: ((program: Command) => void)[] = [
  serializeRepos,
  rewriteWeb,
  fim,
  edits,
  trajectories,
  mask,
  hygiene,
  pack,
  compare,
  report,
  inspect,
  run,
  merge,
  mixture,
  synthQa,
];
