import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/**
 * The hash thread's side (see hash-thread.ts): one sha256 per stream id, fed from shared memory
 * in the order the messages come. Each update is acknowledged once hashed, so the sender may
 * reuse that memory.
 */
export type HashRequest =
  | { op: 'update'; stream: number; seq: number; memory: SharedArrayBuffer; offset: number; length: number }
  | { op: 'digest'; stream: number; seq: number }
  | { op: 'drop'; stream: number };

export interface HashReply {
  stream: number;
  seq: number;
  hex?: string;
  error?: string;
}

const hashes = new Map<number, Hash>();
parentPort!.on('message', (m: HashRequest) => {
  if (m.op === 'drop') {
    hashes.delete(m.stream);
    return;
  }
  const reply: HashReply = { stream: m.stream, seq: m.seq };
  try {
    let hash = hashes.get(m.stream);
    if (!hash) hashes.set(m.stream, (hash = createHash('sha256')));
    if (m.op === 'update') hash.update(new Uint8Array(m.memory, m.offset, m.length));
    else {
      reply.hex = hash.digest('hex');
      hashes.delete(m.stream);
    }
  } catch (e) {
    reply.error = (e as Error).message;
  }
  parentPort!.postMessage(reply);
});
