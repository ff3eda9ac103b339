import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths.js';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { putObject, resetS3Client, sdk, s3Client } from '../../src/io/s3.js';
import { stopSyncBridge } from '../../src/io/s3-sync.js';

/**
 * A real S3-compatible server for the tests: s3rver (an npm devDependency, so it runs wherever
 * `npm ci` ran), in its own process on the loopback, storing objects under its own temporary folder. Starting it
 * points this process's AWS environment at it; `env` is that environment for child processes.
 */
export interface TestS3 {
  endpoint: string;
  env: Record<string, string>;
  /** Creates a bucket (names must be 3-63 characters). */
  bucket(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** s3rver's built-in account. */
const KEY = 'S3RVER';

export async function startS3(): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-s3-'));
  // Its own process: this one waits on synchronous object-store calls (s3-sync.ts).
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'scripts', 's3-server.js'), join(dir, 'store')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { port } = JSON.parse(line) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const env = pointAt(endpoint);
  return {
    endpoint,
    env,
    async bucket(name) {
      const s = await sdk();
      await (await s3Client()).send(new s.CreateBucketCommand({ Bucket: name }));
      return `s3://${name}`;
    },
    async stop() {
      await stopSyncBridge();
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One corpus in two places: each file as the object s3://BUCKET/in/KEY and as the file DIR/in/KEY. */
export async function putCorpusTwice(files: readonly (readonly [key: string, file: string])[], bucket: string, dir: string): Promise<void> {
  for (const [key, file] of files) {
    await putObject(`s3://${bucket}/in/${key}`, readFileSync(file));
    mkdirSync(join(dir, 'in', key, '..'), { recursive: true });
    writeFileSync(join(dir, 'in', key), readFileSync(file));
  }
}

/** Points this process (and the env returned, for children) at an endpoint with the given key. */
export function pointAt(endpoint: string, accessKey = KEY): Record<string, string> {
  const env = { AWS_ENDPOINT_URL: endpoint, AWS_ACCESS_KEY_ID: accessKey, AWS_SECRET_ACCESS_KEY: KEY, AWS_REGION: 'us-east-1', AWS_MAX_ATTEMPTS: '6', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  Object.assign(process.env, env);
  delete process.env.AWS_PROFILE;
  resetS3Client();
  void stopSyncBridge();
  return env;
}

/** A reply the proxy gives instead of forwarding: an S3 error document, or a connection dropped after some of the request body. */
export type InjectedFault = { status: number; code: string } | { dropAfterBytes: number };

/**
 * A loopback proxy in front of the server that answers chosen requests itself with an S3
 * error (503 SlowDown, 500 InternalError, 403 AccessDenied): `decide` sees each request's
 * method and path and returns the fault, or undefined to forward it. Counts what it injected.
 */
export async function faultProxy(target: string, decide: (method: string, path: string, n: number) => InjectedFault | undefined): Promise<{ endpoint: string; injected: number; requests: number; close(): Promise<void> }> {
  const t = new URL(target);
  const state = { injected: 0, requests: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const n = state.requests++;
    const fault = decide(req.method ?? 'GET', req.url ?? '/', n);
    if (fault && 'dropAfterBytes' in fault) {
      state.injected++;
      let seen = 0;
      req.on('data', (c: Buffer) => {
        seen += c.length;
        if (seen > fault.dropAfterBytes) req.socket.destroy();
      });
      return;
    }
    if (fault) {
      state.injected++;
      req.resume();
      req.on('end', () => {
        res.writeHead(fault.status, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${fault.code}</Code><Message>injected by the test</Message></Error>`);
      });
      return;
    }
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    get injected() {
      return state.injected;
    },
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
