import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/**
 * s3rver in a process of its own (the tests' and benchmarks' S3-compatible server): a process
 * that waits on a synchronous object-store call must not be the one serving it.
 * Usage: node dist/scripts/s3-server.js DIR; prints `{"port": N}` once listening, stops on SIGTERM.
 */
const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: s3-server DIR\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
// s3rver ships no types; its constructor and run/close are all this uses.
const { default: S3rver } = (await import('s3rver' as string)) as { default: new (o: object) => { run(): Promise<AddressInfo>; close(): Promise<void> } };
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
const { port } = await server.run();
process.stdout.write(JSON.stringify({ port }) + '\n');
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
