import type { Command } from 'commander';

/**
 * The module that registers each top-level command, loaded on demand: `midpack edits` imports
 * the edits stage and not the web extractor, the packer or the Arrow writer (loading every
 * command's modules took about 1 s of CPU at each start, a sixth of a history's whole walk).
 * A name not here, or help for the program, loads them all (index.ts).
 */
type Registers = () => Promise<{ register: (program: Command) => void }>;

export const commandModules: Readonly<Record<string, Registers>> = {
  'serialize-repos': () => import('./serialize-repos.js'),
  'rewrite-web': () => import('./rewrite-web.js'),
  fim: () => import('./fim.js'),
  edits: () => import('./edits.js'),
  trajectories: () => import('./trajectories.js'),
  mask: () => import('./mask.js'),
  dedup: () => import('./hygiene.js'),
  decontaminate: () => import('./hygiene.js'),
  redact: () => import('./hygiene.js'),
  pack: () => import('./pack.js'),
  compare: () => import('./compare.js'),
  report: () => import('./report.js'),
  inspect: () => import('./inspect.js'),
  run: () => import('./run.js'),
  merge: () => import('./merge.js'),
  mixture: () => import('./mixture.js'),
  'synth-qa': () => import('./synth-qa.js'),
};

/**
 * Registers the command named `name` alone when its module registers it, else every command.
 * Options are positional either way (hygiene's `dedup` asks for it, and so the whole CLI has it).
 */
export async function registerCommands(program: Command, name: string | undefined): Promise<void> {
  program.enablePositionalOptions();
  const one = name === undefined ? undefined : commandModules[name];
  if (one) {
    (await one()).register(program);
    if (program.commands.some((c) => c.name() === name)) return;
  }
  const { commands } = await import('./index.js');
  for (const register of commands) if (!one || register !== (await one()).register) register(program);
}
