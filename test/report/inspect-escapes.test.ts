import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { midpack } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

test('inspect shows control characters of the data as escapes: no ANSI colour, OSC title or link reaches the terminal', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-inspect-'));
  const code = readFileSync(join(repoRoot, 'node_modules/commander/lib/argument.js'), 'utf8').slice(0, 400);
  // A real file with what a hostile page or log may hold: colour, an OSC title and hyperlink, a CR overwrite, a bidi override.
  const hostile = `${code}\x1b[31mRED\x1b[0m \x1b]0;pwned title\x07 \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ safe\roverwritten \u202eevil\u202c \x9b31m\n`;
  const input = join(dir, 'docs.jsonl');
  writeFileSync(input, JSON.stringify({ id: 'doc\x1b[2J', text: hostile }) + '\n');
  const out = join(dir, 'out');
  const p = midpack(['pack', input, '--out', out, '--seq-len', '1024', '--workers', '1', '--no-progress']);
  assert.equal(p.status, 0, p.stderr);
  for (const color of [false, true]) {
    const r = midpack(['inspect', out, '--bin', '0', ...(color ? ['--color'] : [])]);
    assert.equal(r.status, 0, r.stderr);
    const shown = r.stdout;
    // With --color midpack's own dimming sequence is the only escape allowed.
    const stripped = shown.replaceAll('\x1b[2;33m', '').replaceAll('\x1b[0m⟧', '').replaceAll('\x1b[0m', '');
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/.test(stripped), `raw control characters in:\n${JSON.stringify(shown)}`);
    assert.ok(shown.includes('\\x1b[31mRED\\x1b[0m'), 'the colour codes are shown as text');
    assert.ok(shown.includes('\\x1b]0;pwned title\\x07'));
    assert.ok(shown.includes('safe\\roverwritten'));
    assert.ok(shown.includes('\\u202eevil'));
    assert.ok(shown.includes('id=doc\\x1b[2J'));
    assert.ok(shown.includes(code.slice(0, 200)), 'ordinary text, newlines included, is unchanged');
  }
});
