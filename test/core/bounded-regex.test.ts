import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchAllWithin, PatternTimeout } from '../../src/core/bounded-regex.js';
import { readMiniSweAgent } from '../../src/stages/trajectories/scaffolds/mini-swe-agent.js';
import { TrajectoryError } from '../../src/stages/trajectories/model.js';
import { slow } from '../helpers/tiers.js';

test('a pattern that backtracks without end is stopped at its time bound; others match as String.matchAll does', () => {
  assert.throws(() => matchAllWithin(/(a+)+$/g, `${'a'.repeat(40)}!`, 50), PatternTimeout);
  const text = 'THOUGHT\n```bash\nls -la\n```\nmore\n```bash\ncat x\n```';
  const re = /```bash\s*\n(.*?)\n```/gs;
  assert.deepEqual(
    matchAllWithin(re, text, 1000).map((m) => [m.index, ...m.groups]),
    [...text.matchAll(re)].map((m) => [m.index, ...m]),
  );
});

test("a mini-SWE-agent file whose own action_regex runs away: that trajectory is dropped as bad_record, naming the pattern", slow, () => {
  const traj = {
    trajectory_format: 'mini-swe-agent-1',
    info: { config: { model: { action_regex: '^(a+)+$' } }, exit_status: 'Submitted' },
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Fix the bug.' },
      { role: 'assistant', content: `${'a'.repeat(40)}!` },
    ],
  };
  assert.throws(
    () => readMiniSweAgent(traj, 'run.traj.json'),
    (e: unknown) => e instanceof TrajectoryError && e.reason === 'bad_record' && /run\.traj\.json: messages\[2\]: info\.config action_regex \/\^\(a\+\)\+\$\/ ran past 1000 ms/.test(e.message),
  );
});
