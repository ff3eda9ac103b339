import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { OptionSpec, OptionTable } from '../../src/core/options.js';
import { commands } from '../../src/cli/commands/index.js';
import { flagOf, resolveFlags } from '../../src/cli/options.js';
import { collect, defaultContext } from '../../src/core/stage.js';
import { docToJson } from '../../src/doc/document.js';
import { parseRunConfig } from '../../src/job/run-config.js';
import { SOURCES, STAGES } from '../../src/job/registry.js';
import { TEMPLATE_BOUND_KEYS } from '../../src/stages/trajectories/index.js';
import { PACK_OPTIONS, PACKER_KEYS, resolvePackOptions } from '../../src/job/pack-options.js';
import { MASK_APPLY_KEYS, MASK_COUNT_KEYS, MASK_OPTIONS, resolveMaskOptions } from '../../src/stages/mask/options.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

type Resolver = (raw: Record<string, unknown>) => unknown;

/** Every stage option: the command that exposes it as flags, and how a config spells it. */
interface Case {
  command: string[];
  table: OptionTable;
  resolve: Resolver;
  keys?: readonly string[];
  config: (opts: Record<string, unknown>) => Record<string, unknown>;
  /** Options that go together (an LLM needs endpoint and model): given on both sides. */
  base?: Record<string, string>;
}
const LLM = { llmEndpoint: 'http://127.0.0.1:9/v1', llmModel: 'm' };
const CASES: Case[] = [
  { command: ['serialize-repos'], table: SOURCES.repos!.options, resolve: SOURCES.repos!.resolve, config: (o) => source('repos', o) },
  { command: ['rewrite-web'], table: SOURCES.web!.options, resolve: SOURCES.web!.resolve, config: (o) => source('web', o) },
  { command: ['rewrite-web'], table: SOURCES.web!.options, resolve: SOURCES.web!.resolve, config: (o) => source('web', o), base: LLM },
  { command: ['edits'], table: SOURCES.edits!.options, resolve: SOURCES.edits!.resolve, config: (o) => source('edits', o) },
  { command: ['fim'], table: SOURCES.code!.options, resolve: SOURCES.code!.resolve, config: (o) => source('code', o) },
  { command: ['fim'], table: STAGES.fim!.options, resolve: STAGES.fim!.resolve, config: (o) => ({ sources: [{ type: 'documents', inputs: ['x'], then: [{ type: 'fim', options: o }] }] }) },
  { command: ['mask', 'count'], table: MASK_OPTIONS, resolve: resolveMaskOptions, keys: MASK_COUNT_KEYS, config: (o) => ({ ...source('documents', {}), mask: o }) },
  { command: ['mask', 'apply'], table: MASK_OPTIONS, resolve: resolveMaskOptions, keys: MASK_APPLY_KEYS, config: (o) => ({ ...source('documents', {}), mask: o }) },
  { command: ['pack'], table: PACK_OPTIONS, resolve: resolvePackOptions, config: (o) => ({ ...source('documents', {}), pack: o }) },
  { command: ['compare'], table: PACK_OPTIONS, resolve: resolvePackOptions, keys: PACKER_KEYS, config: (o) => ({ ...source('documents', {}), pack: o }) },
  // The trajectories command writes its own flags; its render bounds come from the table.
  { command: ['trajectories'], table: SOURCES.trajectories!.options, resolve: SOURCES.trajectories!.resolve, keys: TEMPLATE_BOUND_KEYS, config: (o) => source('trajectories', o) },
  { command: ['synth-qa'], table: STAGES['synth-qa']!.options, resolve: STAGES['synth-qa']!.resolve, config: (o) => ({ sources: [{ type: 'documents', inputs: ['x'], then: [{ type: 'synth-qa', options: o }] }] }), base: LLM },
];

function source(type: string, options: Record<string, unknown>) {
  return { sources: [{ type, inputs: ['x'], options }] };
}

/** A valid value other than the default, as the config writes it and as the flags write it. */
function sample(spec: OptionSpec): { value: unknown; args: (flag: string) => string[] } {
  switch (spec.type) {
    case 'int':
    case 'number': {
      const value = spec.type === 'int' ? (spec.default ?? spec.min ?? 0) + 1 : spec.max === 1 ? 0.25 : 3.5;
      return { value, args: (f) => [f, String(value)] };
    }
    case 'boolean':
      return { value: !spec.default, args: (f) => [spec.default ? `--no-${f.slice(2)}` : f] };
    case 'string': {
      // A real file, for the options that read one (llmPromptFile).
      const value = spec.choices ? spec.choices.find((c) => c !== spec.default)! : join(repoRoot, 'README.md');
      return { value, args: (f) => [f, value] };
    }
    case 'weights': {
      const value = `${spec.keys[0]}=1`;
      return { value, args: (f) => [f, value] };
    }
  }
}

/** Parses args with the real registered command; returns the options its action would get. */
async function parsedFlags(command: string[], args: string[]): Promise<Record<string, unknown>> {
  const program = new Command().exitOverride();
  for (const register of commands) register(program);
  let cmd = program;
  for (const name of command) cmd = cmd.commands.find((c) => c.name() === name)!;
  let captured: Record<string, unknown> | undefined;
  cmd.exitOverride().action((...a: unknown[]) => {
    captured = (a.at(-1) as Command).opts();
  });
  const positional = command.includes('compare') ? ['--lengths', 'x'] : [...(command.includes('apply') ? ['--counts', 'c'] : []), 'x', '--out', 'o'];
  await program.parseAsync(['node', 'midpack', ...command, ...positional, ...args]);
  return captured!;
}

test('every stage option: the CLI flag and the config key give the same resolved options, defaults included', async () => {
  for (const c of CASES) {
    const keys = c.keys ?? Object.keys(c.table);
    const base = c.base ?? {};
    const baseArgs = Object.entries(base).flatMap(([k, v]) => [flagOf(k), v]);
    // Defaults: no flag at all and an empty config mapping.
    const viaFlags = resolveFlags(c.table, await parsedFlags(c.command, baseArgs), c.resolve, keys);
    assert.deepEqual(viaFlags, c.resolve(base), `${c.command.join(' ')}: defaults differ`);
    for (const key of keys) {
      const spec = c.table[key]!;
      if (!c.base && (key.startsWith('llm') || key === 'cacheDir')) continue; // the LLM options go together: the case with `base` has them
      const { value, args } = sample(spec);
      const flags = await parsedFlags(c.command, [...baseArgs, ...args(flagOf(key))]);
      const fromCli = resolveFlags(c.table, flags, c.resolve, keys);
      const fromConfig = c.resolve({ ...base, [key]: value });
      assert.deepEqual(fromCli, fromConfig, `${c.command.join(' ')} ${flagOf(key)} vs config ${key}: ${JSON.stringify(value)}`);
      assert.notDeepEqual(fromConfig, c.resolve(base), `${key}: the sample value ${JSON.stringify(value)} must change the options`);
      parseRunConfig(c.config({ ...base, [key]: value }), 'test.yaml'); // and the run config accepts it
    }
  }
});

/** A wrong value of each kind, with the text the message must show. */
function wrong(spec: OptionSpec): unknown {
  switch (spec.type) {
    case 'int':
      return 'two';
    case 'number':
      return 'lots';
    case 'boolean':
      return 'yes';
    case 'string':
      return spec.choices ? 'nope' : 42;
    case 'weights':
      return 'bogus=1';
  }
}

test('wrong values are refused, by the config naming path, key and value, and by the CLI naming flag and value', async () => {
  for (const c of CASES) {
    for (const key of c.keys ?? Object.keys(c.table)) {
      const bad = wrong(c.table[key]!);
      assert.throws(
        () => parseRunConfig(c.config({ [key]: bad }), 'bad.yaml'),
        (e: Error) => e.message.startsWith('bad.yaml: ') && e.message.includes(`.${key}: `) && e.message.includes(JSON.stringify(bad).replace(/^"|"$/g, '')),
        `config ${key}: ${JSON.stringify(bad)}`,
      );
      if (c.table[key]!.type === 'boolean' || typeof bad !== 'string') continue; // a flag's value is always a string
      const flags = await parsedFlags(c.command, [flagOf(key), bad]);
      assert.throws(() => resolveFlags(c.table, flags, c.resolve, c.keys), (e: Error) => e.message.startsWith(`${flagOf(key)}: `) && e.message.endsWith(`got "${bad}"`), `${flagOf(key)} ${bad}`);
    }
  }
  // The values the issue names, through the real loaders and the real CLI.
  const dir = mkdtempSync(join(tmpdir(), 'midpack-options-'));
  const cfg = join(dir, 'c.yaml');
  writeFileSync(cfg, 'sources:\n  - type: repos\n    inputs: [x]\n    options: {minFiles: two}\nmask: {minFrac: lots}\n');
  const r = midpack(['run', cfg]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /sources\[0\]\.options\.minFiles: must be an integer in 1\.\.∞, got "two"/);
  writeFileSync(cfg, 'sources:\n  - type: repos\n    inputs: [x]\nmask: {minFrac: lots}\n');
  assert.match(midpack(['run', cfg]).stderr, /mask\.minFrac: must be a number in 0\.\.1, got "lots"/);
  const cli = midpack(['serialize-repos', 'x', '--out', join(dir, 'o.jsonl'), '--min-files', 'two']);
  assert.equal(cli.status, 1);
  assert.equal(cli.stderr, 'midpack: error: --min-files: must be an integer in 1..∞, got "two"\n');
});

test('a missing required option prints one line naming it and a pointer to --help', () => {
  const r = midpack(['pack', 'x']);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, "error: required option '--out <dir>' not specified\n(run with --help for the options)\n");
});

test('midpack edits reads a git bundle, and gives the same documents as the run config source with the same options', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-edits-bundle-'));
  const bundle = join(repoRoot, 'data-samples/history/p-limit.bundle');
  const out = join(dir, 'e.jsonl');
  const r = midpack(['edits', bundle, '--out', out, '--formats', 'sr', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  assert.ok(lines.length >= 5, `only ${lines.length} edit samples from the bundle`);
  const entry = SOURCES.edits!;
  const ctx = defaultContext({ log: () => {} });
  const docs = await collect(entry.read([bundle], entry.resolve({ formats: 'sr' }), ctx));
  assert.deepEqual(docs.map(docToJson), lines);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.options.maxFileBytes, 1 << 20);
  assert.equal(manifest.options.formats, 'sr');
});
