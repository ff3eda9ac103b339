import { spawnProcess } from '../../io/spawn-process.js';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Ledger } from '../../core/ledger.js';
import { inputOwns } from '../../core/ranks.js';
import { portableNamer } from '../../io/inputs.js';
import type { StageContext } from '../../core/stage.js';
import type { Doc } from '../../doc/document.js';
import { editSamples, type EditStats } from './edit-sample.js';
import { historyUnits, rowUnits, type EditUnit } from './history.js';
import type { EditsOptions } from './options.js';
import { ContextBuilder } from './context.js';
import { instanceUnits } from './instances.js';
import { InstanceExclusions } from '../hygiene/instances-decontam.js';
import { loadTokenizer } from '../../tokenize/tokenizer.js';
import { git } from './git.js';

/**
 * The edits source: each input is a git repository (a working tree or a bare one), a git bundle
 * (`.bundle`, a history shipped as one file, cloned into the work folder first) or a JSONL file of
 * {before, after, description} rows, or with `repos` set, a JSONL file of pull-request instances
 * (instances.ts). The same for `midpack edits` and a config's `type: edits`.
 */
export async function* editsSource(inputs: string[], options: EditsOptions, ctx: StageContext, piece?: EditsPiece): AsyncIterable<Doc> {
  if (piece) [inputs, options] = [[inputs[piece.input]!], pieceOptions(options, piece)];
  const files = new Ledger();
  const context = await contextBuilder(options);
  const { repos, excludeInstances } = options.instances;
  if (excludeInstances.length && repos === undefined) throw new Error('edits: --exclude-instances applies to pull-request instances: give --repos DIR');
  const exclusions = excludeInstances.length ? await InstanceExclusions.load(excludeInstances) : undefined;
  // Bundles are cloned below the context's work folder, or a temporary one this source removes
  // when its last samples are checked (git apply --check reads the clone's blobs).
  const ownTmp = ctx.workDir === undefined && inputs.some((i) => i.endsWith('.bundle')) ? mkdtempSync(join(tmpdir(), 'midpack-edits-')) : undefined;
  try {
    yield* editSamples(editUnits(inputs, options, ctx, files, context, ownTmp, exclusions), options.edit, ctx);
  } finally {
    if (ownTmp) rmSync(ownTmp, { recursive: true, force: true });
  }
  const stats = ctx.stats.edits as EditStats & { files?: unknown; context?: unknown };
  stats.files = files.toJSON();
  stats.context = context.stats;
}

/**
 * The context builder of a run; with a token budget it counts in the packing tokenizer, on the
 * fast backend where it is exact for that tokenizer (the same ids; the reference backend made
 * counting most of a history's time).
 */
async function contextBuilder(options: EditsOptions): Promise<ContextBuilder> {
  if (options.context.contextTokens <= 0) return new ContextBuilder(options.context);
  const tokenizer = await loadTokenizer(options.tokenizer, 'auto');
  return new ContextBuilder(options.context, (text) => tokenizer.countPlain(text), options.tokenizer);
}

/**
 * A part of an edits source prepared on its own (a run prepares the pieces of a source in
 * several workers, and reads them back in order): one input, and for a git history with more
 * than `pieceCommits` commits, a run of at most that many of its commits in rev-list's order (pieceSize). Each commit's samples
 * depend only on the commit (its seeded choices are drawn per commit), so the pieces' documents
 * in order are the source's documents.
 */
export interface EditsPiece {
  input: number;
  commits?: [number, number];
  /**
   * The piece's rev-list lines (`--reverse --parents`, its commits' places in order), listed once
   * by the planner: a piece's walk then starts no rev-list of its own (a git process less; with
   * child_process's spawn, MIDPACK_SPAWN=node, a fork of the worker's whole process, tens of ms of
   * CPU at a run's RSS).
   */
  revList?: string[];
}

/** The options of a piece's walk: its places in rev-list's order, and its lines when the planner gave them (places then from 0). */
function pieceOptions(options: EditsOptions, piece: EditsPiece): EditsOptions {
  if (piece.revList) return { ...options, history: { ...options.history, range: [0, piece.revList.length], revList: piece.revList } };
  return piece.commits ? { ...options, history: { ...options.history, range: piece.commits } } : options;
}

/** The pieces of an edits source, in order. Bundles are cloned here, once, into the work folder the pieces read them from. */
export async function editsPieces(inputs: string[], options: EditsOptions, ctx: StageContext): Promise<EditsPiece[]> {
  const pieces: EditsPiece[] = [];
  for (const [input, path] of inputs.entries()) {
    const dir = path.endsWith('.bundle') && ctx.workDir ? await cloneBundle(path, bundleDir(ctx.workDir, path)) : path;
    if (dir === path && !isGitRepo(path)) {
      pieces.push({ input });
      continue;
    }
    const lines = await revListLines(dir, options.history.rev);
    const n = Math.min(options.history.maxCommits, lines.length);
    const size = pieceSize(n, options.pieceCommits);
    for (let from = 0; from < Math.max(n, 1); from += size) {
      const to = Math.min(n, from + size);
      pieces.push({ input, ...(n > size ? { commits: [from, to] as [number, number] } : {}), revList: lines.slice(from, to) });
    }
  }
  return pieces;
}

/**
 * Commits per piece of a history of `n`: the fewest pieces of at most `most`, of even sizes. A
 * short last piece would cost a thread's start (its tokenizer, its caches filled from a cold
 * tree, its git processes) for a few commits.
 */
export function pieceSize(n: number, most: number): number {
  const pieces = Math.max(1, Math.ceil(n / most));
  return Math.max(1, Math.ceil(n / pieces));
}

/** A history's commits oldest first with their parents (the lines a walk reads: historyUnits). */
async function revListLines(dir: string, rev: string): Promise<string[]> {
  return (await git(dir, ['rev-list', '--reverse', '--parents', rev])).toString('utf8').split('\n').filter((line) => line !== '');
}

const bundleDir = (workDir: string, bundle: string) => join(workDir, 'git', basename(bundle, '.bundle'));

export const isGitRepo = (dir: string): boolean => {
  const st = statSync(dir, { throwIfNoEntry: false });
  return st?.isDirectory() === true && (existsSync(join(dir, '.git')) || statSync(join(dir, 'HEAD'), { throwIfNoEntry: false })?.isFile() === true);
};

async function* editUnits(inputs: string[], o: EditsOptions, ctx: StageContext, files: Ledger, context: ContextBuilder, ownTmp: string | undefined, exclusions?: InstanceExclusions): AsyncIterable<EditUnit> {
  const history = { ...o.history, owns: ctx.owns };
  const nameOf = portableNamer(inputs);
  for (const input of inputs) {
    if (input.endsWith('.bundle')) {
      const dir = await cloneBundle(input, bundleDir(ctx.workDir ?? ownTmp!, input));
      yield* historyUnits(dir, { ...history, repoName: history.repoName ?? basename(input, '.bundle') }, ctx.seed, ctx.ledger, files, context);
    } else if (isGitRepo(input)) {
      yield* historyUnits(input, history, ctx.seed, ctx.ledger, files, context);
    } else if (statSync(input, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`${input}: a folder that is not a git repository (edits read git history, bundles or JSONL rows)`);
    } else if (o.instances.repos !== undefined) {
      const opts = { ...o.instances, repos: o.instances.repos, maxFileBytes: o.history.maxFileBytes, ...(exclusions ? { exclusions } : {}) };
      yield* instanceUnits(input, opts, context, ctx.ledger, ctx.seed, inputOwns(ctx.owns, nameOf(input)));
    } else {
      yield* rowUnits(input, ctx.ledger, inputOwns(ctx.owns, nameOf(input)));
    }
  }
}

/**
 * Clones a bundle without a working tree: every read is of git's objects (cat-file, diff-tree,
 * ls-tree, `apply --check --cached`), so checking files out (and removing them after) was work
 * for nothing. Run without blocking: the main thread plans a run's pieces while it reads parts.
 */
async function cloneBundle(bundle: string, dir: string): Promise<string> {
  if (existsSync(join(dir, '.git'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const stderr = await new Promise<string | undefined>((resolve, reject) => {
    const p = spawnProcess('git', ['clone', '--quiet', '--no-checkout', bundle, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve(code === 0 ? undefined : err));
  });
  if (stderr !== undefined) throw new Error(`${bundle}: git clone of the bundle failed: ${stderr.trim()}`);
  return dir;
}
