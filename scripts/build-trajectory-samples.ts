/**
 * Builds data-samples/trajectories/: a few real agent trajectories from SWE-agent's test data
 * (MIT, ../shared/data/trajectories/swe-agent/LICENSE), in each input format midpack reads:
 *
 *   swe-agent/*.traj   two trajectories as SWE-agent wrote them: function calling, and text actions
 *   openai.jsonl       the function-calling trajectory as an OpenAI chat row, with `tools`
 *   sharegpt.jsonl     the text-action trajectory as a ShareGPT row in LLaMA-Factory's tool layout:
 *                      `gpt` the thought, `function_call` the command, `observation` its output
 *
 *   node dist/scripts/build-trajectory-samples.js  (after npm run build)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, sharedDir } from '../test/helpers/paths.js';

const src = join(sharedDir, 'data', 'trajectories', 'swe-agent');
const out = join(repoRoot, 'data-samples', 'trajectories');
const FUNCTION_CALLING = 'function_calling_simple.traj';
const TEXT_ACTIONS = 'human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00__p-0.95__c-4.00__install-0/humanevalfix-python-0.traj';

type Entry = { role: string; content: string; thought?: string; action?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_ids?: string[] };
const history = (file: string) => (JSON.parse(readFileSync(join(src, file), 'utf8')) as { history: Entry[] }).history;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'swe-agent'), { recursive: true });
// Copied by content: the shared files are read-only, the copies need not be.
const copy = (from: string, to: string) => writeFileSync(to, readFileSync(from));
copy(join(src, FUNCTION_CALLING), join(out, 'swe-agent', 'function-calling.traj'));
copy(join(src, TEXT_ACTIONS), join(out, 'swe-agent', 'text-actions.traj'));
copy(join(src, 'LICENSE'), join(out, 'LICENSE'));

// OpenAI chat row: the same messages, with tool definitions written out for the tools it calls.
const fc = history(FUNCTION_CALLING);
const messages = fc.map((m) => {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.tool_call_ids?.[0] };
  if (m.tool_calls) return { role: 'assistant', content: m.thought ?? m.content, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: c.function })) };
  return { role: m.role, content: m.content };
});
const param = (description: string) => ({ type: 'string', description });
const tools = [
  { name: 'find_file', description: 'Finds all files with the given name in dir.', parameters: { type: 'object', properties: { file_name: param('the name of the file to search for'), dir: param('the directory to search in (default: current directory)') }, required: ['file_name'] } },
  { name: 'open', description: 'Opens the file at the given path in the editor.', parameters: { type: 'object', properties: { path: param('the path to the file to open'), line_number: { type: 'integer', description: 'the line number to move the window to' } }, required: ['path'] } },
  { name: 'edit', description: 'Replaces the first occurrence of search with replace in the open file.', parameters: { type: 'object', properties: { search: param('the text to replace'), replace: param('the new text') }, required: ['search', 'replace'] } },
  { name: 'bash', description: 'Runs a shell command.', parameters: { type: 'object', properties: { command: param('the command') }, required: ['command'] } },
  { name: 'submit', description: 'Submits the current changes.', parameters: { type: 'object', properties: {} } },
].map((f) => ({ type: 'function', function: f }));
writeFileSync(join(out, 'openai.jsonl'), JSON.stringify({ messages, tools }) + '\n');

// ShareGPT row: the text-action trajectory, each command a `function_call` of the shell tool.
const FROM: Record<string, string> = { system: 'system', user: 'human' };
const conversations: { from: string; value: string }[] = [];
let afterCommand = false;
for (const m of history(TEXT_ACTIONS)) {
  if (m.role === 'assistant') {
    conversations.push({ from: 'gpt', value: m.thought ?? '' });
    conversations.push({ from: 'function_call', value: JSON.stringify({ name: 'bash', arguments: { command: m.action ?? '' } }) });
    afterCommand = true;
  } else {
    conversations.push({ from: afterCommand ? 'observation' : FROM[m.role]!, value: m.content });
    afterCommand = false;
  }
}
writeFileSync(join(out, 'sharegpt.jsonl'), JSON.stringify({ conversations }) + '\n');
