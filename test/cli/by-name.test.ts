import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { commandModules, registerCommands } from '../../src/cli/commands/by-name.js';
import { commands } from '../../src/cli/commands/index.js';
import { slow } from '../helpers/tiers.js';

const helpOf = (program: Command, name: string) => program.commands.find((c) => c.name() === name)!.helpInformation();

test('a command loaded by its name alone is the command the whole CLI has, with the same help', slow, async () => {
  const all = new Command();
  for (const register of commands) register(all);
  const names = all.commands.map((c) => c.name());
  // Every top-level command can be loaded by name, and each name is a command.
  assert.deepEqual([...names].sort(), Object.keys(commandModules).sort());
  for (const name of names) {
    const one = new Command();
    await registerCommands(one, name);
    assert.ok(one.commands.length < names.length, `${name}: loaded without the others`);
    assert.equal(helpOf(one, name), helpOf(all, name), name);
  }
  // No name, or a name that is not a command: every command, in the whole CLI's order.
  for (const name of [undefined, '--help', 'bogus']) {
    const program = new Command();
    await registerCommands(program, name);
    assert.deepEqual(program.commands.map((c) => c.name()), names);
  }
});
