import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { SPECIAL } from '../../../src/doc/specials.js';
import { loadTokenizer, type MidTokenizer } from '../../../src/tokenize/index.js';
import { encodeForPacking } from '../../../src/tokenize/encode.js';
import { readSweAgent, type Message } from '../../../src/stages/trajectories/index.js';
import { midpack } from '../../helpers/run-cli.js';
import { readRows, type Row } from '../../helpers/shard-rows.js';
import { assertTrainedTurns, readJsonlDocs, sweAgentDir, tmp } from './helpers.js';
import { CHAT_FIXTURES } from '../../../scripts/build-chat-template-rows.js';
import { sharedDir } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

/**
 * The shared SWE-agent trajectories in every template, packed with `--overlong boundary` at small
 * L, checked against a fresh tokenization of each document: chunks start at turns with the header
 * repeated, every token is in exactly one bin, and by decoding the packed tokens, every assistant
 * message and call argument is trained on and every observation is masked.
 */
interface Unit {
  offset: number;
  ids: Int32Array;
  mask: Uint8Array;
}

function unitsByDoc(rows: Row[]): Map<string, Unit[]> {
  const units = new Map<string, Unit[]>();
  for (const row of rows) {
    let at = 0;
    row.lens.forEach((len, u) => {
      const list = units.get(row.docIds[u]!) ?? [];
      list.push({ offset: row.offsets[u]!, ids: row.ids.subarray(at, at + len), mask: row.mask.subarray(at, at + len) });
      units.set(row.docIds[u]!, list);
      at += len;
    });
  }
  for (const list of units.values()) list.sort((a, b) => a.offset - b.offset);
  return units;
}

const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((x, i) => x === b[i]);

/** Reassembles one document from its chunks, checking the header and the cut points; returns the cut counts. */
function checkChunks(doc: Doc, fresh: { ids: Int32Array; mask: Uint8Array; boundaries: Uint32Array }, units: Unit[], L: number) {
  const b = Array.from(fresh.boundaries);
  const header = b[0]!;
  const turnEnd = (at: number) => [...b, fresh.ids.length].find((x) => x > at)!;
  let cursor = 0;
  let between = 0;
  let inside = 0;
  units.forEach((u, k) => {
    let piece = u;
    if (k > 0) {
      assert.ok(same(u.ids.subarray(0, header), fresh.ids.subarray(0, header)), `${doc.id} chunk ${k}: starts with the header`);
      assert.ok(same(u.mask.subarray(0, header), fresh.mask.subarray(0, header)));
      piece = { offset: u.offset, ids: u.ids.subarray(header), mask: u.mask.subarray(header) };
      if (b.includes(u.offset)) between++;
      else {
        // inside a turn only when that turn alone is longer than the room after the header
        const start = [0, ...b].filter((x) => x <= u.offset).pop()!;
        assert.ok(turnEnd(start) - start > L - header, `${doc.id} chunk ${k} starts inside a turn of ${turnEnd(start) - start} tokens`);
        inside++;
      }
    }
    assert.equal(u.offset, cursor, `${doc.id}: chunk ${k} continues where the last one ended`);
    assert.ok(same(piece.ids, fresh.ids.subarray(cursor, cursor + piece.ids.length)), `${doc.id} chunk ${k}: tokens`);
    assert.ok(same(piece.mask, fresh.mask.subarray(cursor, cursor + piece.ids.length)), `${doc.id} chunk ${k}: mask`);
    cursor += piece.ids.length;
  });
  assert.equal(cursor, fresh.ids.length, `${doc.id}: every token is in exactly one chunk`);
  return { cut: units.length > 1 ? 1 : 0, between, inside };
}

/** Per character of the text: 1 if the packed token holding it is trained on, found by decoding token by token. */
const decodedIds = new Map<number, string>();

function trainedChars(tok: MidTokenizer, text: string, ids: Int32Array, mask: Uint8Array): Uint8Array {
  const out = new Uint8Array(text.length);
  let pos = 0;
  for (let i = 0; i < ids.length - 1; ) {
    let j = i + 1;
    let piece = decodedIds.get(ids[i]!) ?? tok.decode([ids[i]!]);
    decodedIds.set(ids[i]!, piece);
    // a character split over byte-level tokens decodes once its last byte is in
    while (piece.includes('\uFFFD') && j < ids.length - 1 && j - i < 8) piece = tok.decode(ids.subarray(i, ++j));
    if (!text.startsWith(piece, pos)) assert.fail(`token ${i} decodes to ${JSON.stringify(piece)}, not the next characters ${JSON.stringify(text.slice(pos, pos + 20))}`);
    for (let k = i; k < j; k++) if (mask[k] !== mask[i]) assert.fail(`token ${k}: one character, one mask value`);
    out.fill(mask[i]!, pos, pos + piece.length);
    pos += piece.length;
    i = j;
  }
  assert.equal(pos, text.length);
  return out;
}

/** What a call's arguments look like in each template: the value strings to find in the text. */
function argumentTexts(template: string, call: NonNullable<Message['calls']>[number]): string[] {
  // JSON in hermes and in text-action's tagged blocks; qwen3-coder and shell commands write strings as they are
  const json = template === 'hermes' || (template === 'text-action' && !isShell(call));
  return Object.values(call.arguments).map((v) => (json || typeof v !== 'string' ? JSON.stringify(v) : v));
}

const isShell = (c: NonNullable<Message['calls']>[number]) => c.name === 'bash' && Object.keys(c.arguments).length === 1 && typeof c.arguments.command === 'string';

/** Walks the messages in order through the text: assistant text and call arguments trained, everything else masked. */
function checkMeaning(doc: Doc, messages: Message[], trained: Uint8Array): number {
  const text = doc.text;
  let cursor = 0;
  let checked = 0;
  const find = (s: string, what: string) => {
    const at = text.indexOf(s, cursor);
    assert.ok(at >= 0, `${doc.source} ${doc.meta.template}: ${what} not found after ${cursor}`);
    return at;
  };
  const expect = (from: number, to: number, value: number, what: string) => {
    for (let i = from; i < to; i++) {
      if (trained[i] !== value) assert.fail(`${doc.source} ${doc.meta.template}: ${what}: char ${i} ${JSON.stringify(text.slice(i, i + 20))} is ${value ? 'masked' : 'trained on'}`);
    }
    checked += to - from;
  };
  const toolFrame = doc.meta.template === 'text-action' ? ['user\n', SPECIAL.imEnd] : [`${SPECIAL.toolResponse}\n`, `\n${SPECIAL.toolResponseEnd}`];
  for (const m of messages.slice(1)) {
    if (m.role === 'assistant') {
      const head = `${SPECIAL.imStart}assistant\n`;
      const at = find(head + m.content, 'assistant turn') + head.length;
      expect(at, at + m.content.length, 1, 'assistant text');
      cursor = at + m.content.length;
      for (const c of m.calls ?? []) {
        // text-action writes a shell command as an untagged block: no name to find
        if (doc.meta.template !== 'text-action' || !isShell(c)) {
          const name = find(c.name, `call ${c.name}`);
          expect(name, name + c.name.length, 1, 'call name');
          cursor = name + c.name.length;
        }
        for (const v of argumentTexts(doc.meta.template as string, c)) {
          const a = find(v, `argument of ${c.name}`);
          expect(a, a + v.length, 1, `argument of ${c.name}`);
          cursor = a + v.length;
        }
      }
      const end = find(SPECIAL.imEnd, 'end of the assistant turn');
      expect(end, end + SPECIAL.imEnd.length, 1, 'the assistant <|im_end|>');
    } else {
      const [open, close] = m.role === 'tool' ? toolFrame : [`${m.role}\n`, SPECIAL.imEnd];
      const at = find(open + m.content + close, `${m.role} message`) + open.length;
      expect(at, at + m.content.length, 0, m.role === 'tool' ? 'observation' : `${m.role} message`);
      cursor = at + m.content.length;
    }
  }
  return checked;
}

test('pack --overlong boundary of the rendered SWE-agent trajectories: header on every later chunk, cuts between turns, every token once, masks by decoding', slow, async () => {
  const dir = tmp();
  const docsFile = join(dir, 'traj.jsonl');
  assert.equal(midpack(['trajectories', sweAgentDir, '--out', docsFile, '--all-templates', '--quiet']).status, 0);
  const docs = readJsonlDocs(docsFile);
  const tok = await loadTokenizer();
  const fresh = new Map(docs.map((d) => [d.id, encodeForPacking(tok, { text: d.text, special_spans: d.special_spans, loss_mask_spans: d.loss_mask_spans, boundaries: d.meta.boundaries as number[] })]));
  let decoded = 0;
  for (const L of [4096, 2048]) {
    const out = join(dir, `out-${L}`);
    const r = midpack(['pack', docsFile, '--out', out, '--seq-len', String(L), '--overlong', 'boundary', '--workers', '1', '--no-progress']);
    assert.equal(r.status, 0, r.stderr);
    const rows = readRows(out);
    const units = unitsByDoc(rows);
    assert.equal(units.size, docs.length);
    const cuts = { trajectories_cut: 0, between_turns: 0, inside_turn: 0 };
    for (const doc of docs) {
      const f = fresh.get(doc.id) as { ids: Int32Array; mask: Uint8Array; boundaries: Uint32Array };
      const c = checkChunks(doc, f, units.get(doc.id)!, L);
      cuts.trajectories_cut += c.cut;
      cuts.between_turns += c.between;
      cuts.inside_turn += c.inside;
      if (L === 4096) {
        const trained = trainedChars(tok, doc.text, f.ids, f.mask);
        decoded += checkMeaning(doc, readSweAgent(JSON.parse(readFileSync(doc.source, 'utf8')), doc.source).messages, trained);
      }
    }
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    assert.deepEqual(report.turn_cuts, cuts, `L=${L}: the report counts the cuts the shards hold`);
    assert.ok(cuts.between_turns > 20, `L=${L}: long trajectories were cut between turns`);
    if (L === 2048) assert.ok(cuts.inside_turn > 0, 'at L=2048 some turns are longer than the room: cut inside, counted');
    if (L === 4096) assert.equal(cuts.inside_turn, 0);
    assert.deepEqual(Object.keys(report.by_template), ['hermes', 'qwen3-coder', 'text-action']);
    // every token once, plus one header per later chunk
    const placed = rows.reduce((n, row) => n + row.lens.reduce((s, x) => s + x, 0), 0);
    const headers = docs.reduce((n, d) => n + (units.get(d.id)!.length - 1) * fresh.get(d.id)!.boundaries![0]!, 0);
    assert.equal(placed, report.packing.tokens + headers);
    assert.equal(report.packing.duplicated_tokens, headers);
  }
  assert.ok(decoded > 500_000, `characters checked by decoding: ${decoded}`);
});

test('pack --overlong boundary of turn-faithful samples (Qwen3): each sample cut at its turn starts with the header repeated, every token once', slow, async () => {
  const dir = tmp();
  const docsFile = join(dir, 'faithful.jsonl');
  const template = join(sharedDir, 'data', 'chat-templates', 'qwen3.jinja');
  const r0 = midpack(['trajectories', sweAgentDir, '--out', docsFile, '--chat-template', template, '--turns', 'faithful', '--quiet']);
  assert.equal(r0.status, 0, r0.stderr);
  const docs = readJsonlDocs(docsFile);
  assert.ok(docs.length > 50 && docs.every((d) => d.meta.turns_mode === 'faithful'), `${docs.length} samples`);
  const tok = await loadTokenizer();
  const L = 4096;
  const out = join(dir, 'out');
  const r = midpack(['pack', docsFile, '--out', out, '--seq-len', String(L), '--overlong', 'boundary', '--workers', '1', '--no-progress']);
  assert.equal(r.status, 0, r.stderr);
  const units = unitsByDoc(readRows(out));
  assert.equal(units.size, docs.length);
  const cuts = { trajectories_cut: 0, between_turns: 0, inside_turn: 0 };
  for (const doc of docs) {
    const f = encodeForPacking(tok, { text: doc.text, special_spans: doc.special_spans, loss_mask_spans: doc.loss_mask_spans, boundaries: doc.meta.boundaries as number[] }) as { ids: Int32Array; mask: Uint8Array; boundaries: Uint32Array };
    const c = checkChunks(doc, f, units.get(doc.id)!, L);
    cuts.trajectories_cut += c.cut;
    cuts.between_turns += c.between;
    cuts.inside_turn += c.inside;
  }
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.deepEqual(report.turn_cuts, cuts);
  assert.ok(cuts.between_turns > 20, JSON.stringify(cuts));
});

/** The bytes a pack wrote: shards, Megatron files and document lengths (the manifest and report hold times). */
function outputBytes(out: string): Map<string, string> {
  const files = ['doc_lengths.u32', ...readdirSync(join(out, 'shards')).map((f) => `shards/${f}`), ...readdirSync(join(out, 'megatron')).map((f) => `megatron/${f}`)];
  return new Map(files.map((f) => [f, createHash('sha256').update(readFileSync(join(out, f))).digest('hex')]));
}

test("pack of turn-faithful samples (Qwen3): a trajectory's samples that fit in L are in one bin, adjacent and in sample order; every turn trained once by decoding the packed tokens; same bytes for 1 and 2 workers", slow, async () => {
  const dir = tmp();
  const docsFile = join(dir, 'faithful.jsonl');
  const template = join(sharedDir, 'data', 'chat-templates', 'qwen3.jinja');
  const stress = join(CHAT_FIXTURES, 'stress.jsonl');
  const r0 = midpack(['trajectories', stress, sweAgentDir, '--out', docsFile, '--chat-template', template, '--turns', 'faithful', '--no-require-termination', '--no-require-valid-calls', '--quiet']);
  assert.equal(r0.status, 0, r0.stderr);
  const docs = readJsonlDocs(docsFile);
  const tok = await loadTokenizer();
  const L = 32768;
  const outs = ['1', '2'].map((workers) => {
    const out = join(dir, `out-${workers}`);
    const r = midpack(['pack', docsFile, '--out', out, '--seq-len', String(L), '--overlong', 'boundary', '--workers', workers, '--force-workers', '--no-progress']);
    assert.equal(r.status, 0, r.stderr);
    return out;
  });
  assert.deepEqual(outputBytes(outs[1]!), outputBytes(outs[0]!), 'the same bytes for 1 and 2 workers');
  const rows = readRows(outs[0]!);
  // Where each document is: (row, position in the row); every sample is a document of its own.
  const where = new Map<string, { row: number; pos: number; ids: Int32Array; mask: Uint8Array }[]>();
  rows.forEach((row, r) => {
    let at = 0;
    row.docIds.forEach((id, pos) => {
      const len = row.lens[pos]!;
      where.set(id, [...(where.get(id) ?? []), { row: r, pos, ids: row.ids.subarray(at, at + len), mask: row.mask.subarray(at, at + len) }]);
      at += len;
    });
  });
  assert.equal(where.size, docs.length);
  const trajectories = new Map<string, Doc[]>();
  for (const d of docs) trajectories.set(d.meta.group as string, [...(trajectories.get(d.meta.group as string) ?? []), d]);
  let together = 0;
  let apart = 0;
  let groupedDocs = 0;
  for (const [group, samples] of trajectories) {
    assert.ok(group && samples.length > 1, 'each trajectory here has several samples, one group');
    assert.deepEqual(samples.map((d) => d.meta.sample), samples.map((_, k) => k));
    const places = samples.map((d) => where.get(d.id)!);
    const tokens = places.reduce((n, p) => n + p.reduce((s, u) => s + u.ids.length, 0), 0);
    if (tokens <= L) {
      together++;
      groupedDocs += samples.length;
      assert.ok(places.every((p) => p.length === 1 && p[0]!.row === places[0]![0]!.row), `${samples[0]!.source}: samples in one bin`);
      assert.deepEqual(places.map((p) => p[0]!.pos), places.map((_, k) => places[0]![0]!.pos + k), `${samples[0]!.source}: adjacent, in sample order`);
    } else apart++;
    // Decoding the packed tokens: each sample trains its held turns and nothing else; each turn is held once.
    const held = samples.flatMap((d) => d.meta.held_turns as number[]);
    assert.equal(new Set(held).size, held.length, `${samples[0]!.source}: each turn in one sample only`);
    samples.forEach((d, k) => {
      assert.equal(places[k]!.length, 1, `${d.id}: whole (no sample is longer than L here)`);
      assertTrainedTurns(tok, d, d.source, places[k]![0]!);
    });
  }
  const report = JSON.parse(readFileSync(join(outs[0]!, 'report.json'), 'utf8'));
  assert.deepEqual(report.doc_groups, { groups: together, grouped_docs: groupedDocs, groups_split: apart });
  assert.ok(together >= 3 && apart >= 3, `${together} trajectories packed together, ${apart} longer than L`);
  assert.equal(JSON.parse(readFileSync(join(outs[0]!, 'manifest.json'), 'utf8')).balanced, true);
});
