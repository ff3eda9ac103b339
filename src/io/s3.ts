import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { hostname } from 'node:os';
import type { S3Client } from '@aws-sdk/client-s3';
import { formatRemote, parseRemote, type RemoteUrl } from './remote.js';
import { rememberReadHash } from './read-hashes.js';

/**
 * Objects in an S3-compatible store (AWS S3, MinIO, Ceph RGW, R2, GCS's S3 API) through the
 * official SDK. Endpoint, region and credentials come from the standard AWS environment and
 * config files (AWS_ENDPOINT_URL, AWS_PROFILE, AWS_ACCESS_KEY_ID, ~/.aws/config); an endpoint
 * set there is addressed path-style (bucket in the path, as MinIO and most S3-compatible
 * servers want), unless AWS_S3_FORCE_PATH_STYLE=false. Throttling (503 SlowDown), 500s and
 * dropped connections are retried by the SDK's standard retry, AWS_MAX_ATTEMPTS times (default 8).
 *
 * The SDK is loaded on first use, so a run on local paths never loads it.
 */
type Sdk = typeof import('@aws-sdk/client-s3');

let sdkPromise: Promise<Sdk> | undefined;
let clientPromise: Promise<S3Client> | undefined;

export function sdk(): Promise<Sdk> {
  // The SDK warns once per process about future Node versions; midpack's users cannot act on that here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return (sdkPromise ??= import('@aws-sdk/client-s3'));
}

/** The process's client, made from the standard AWS environment and config. */
export function s3Client(): Promise<S3Client> {
  return (clientPromise ??= sdk().then((s) => new s.S3Client(clientConfig())));
}

/** Forgets the client (tests change the environment between servers). */
export function resetS3Client(): void {
  clientPromise = undefined;
}

function clientConfig(): NonNullable<ConstructorParameters<Sdk['S3Client']>[0]> {
  const env = process.env;
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const pathStyle = env.AWS_S3_FORCE_PATH_STYLE !== undefined ? env.AWS_S3_FORCE_PATH_STYLE !== 'false' : endpoint !== undefined;
  return {
    forcePathStyle: pathStyle,
    // S3-compatible servers ignore the region, but the SDK wants one to sign with.
    ...(endpoint && !env.AWS_REGION && !env.AWS_DEFAULT_REGION && !env.AWS_PROFILE ? { region: 'us-east-1' } : {}),
    maxAttempts: Number(env.AWS_MAX_ATTEMPTS) || 8,
    // Checksums are asked for where midpack wants them (uploads: SHA-256 per part), not on every request:
    // the SDK's default trailing checksums are not understood by every S3-compatible server.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** An object-store failure, said in one line that names the object and what to check. */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'CredentialsProviderError', 'TokenRefreshRequired']);

/** The SDK's error as one line naming the object: bucket missing, credentials refused, access denied, object gone. */
export function storageError(url: string, e: unknown, doing = ''): StorageError {
  if (e instanceof StorageError) return e;
  const err = e as { name?: string; Code?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const code = err.Code ?? err.name ?? err.code ?? 'Error';
  const status = err.$metadata?.httpStatusCode;
  const what = doing ? ` (${doing})` : '';
  const bucket = safeBucket(url);
  if (code === 'NoSuchBucket') return new StorageError(`s3://${bucket}: no such bucket${what}: check the bucket name and the endpoint (AWS_ENDPOINT_URL)`, code);
  if (CREDENTIAL_CODES.has(code) || /credential/i.test(err.message ?? '')) {
    return new StorageError(`${url}: the object store refused the credentials (${code})${what}: check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE`, code);
  }
  if (code === 'AccessDenied' || status === 403) return new StorageError(`${url}: access denied (${code})${what}: the credentials may not ${doing || 'do this'} here`, code);
  if (code === 'NoSuchKey' || code === 'NotFound' || status === 404) return new StorageError(`${url}: no such object${what}`, 'NoSuchKey');
  if (code === 'PreconditionFailed' || status === 412) return new StorageError(`${url}: the object changed while it was read${what}`, code);
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT/.test(`${err.code ?? ''} ${err.message ?? ''}`)) {
    return new StorageError(`${url}: cannot reach the object store (${err.code ?? err.message})${what}: check AWS_ENDPOINT_URL`, code);
  }
  return new StorageError(`${url}: ${err.message ?? String(e)} (${code}${status ? `, HTTP ${status}` : ''})${what}`, code);
}

function safeBucket(url: string): string {
  try {
    return parseRemote(url).bucket;
  } catch {
    return url;
  }
}

async function send<T>(url: string, doing: string, make: (s: Sdk) => object): Promise<T> {
  const [s, client] = await Promise.all([sdk(), s3Client()]);
  try {
    return (await client.send(make(s) as never)) as T;
  } catch (e) {
    throw storageError(url, e, doing);
  }
}

export interface RemoteObject {
  url: string;
  key: string;
  size: number;
  etag: string;
  /** Milliseconds since the epoch. */
  modified: number;
}

/** Object reads made by another thread for this one (s3-relay.ts), when it set them. */
export interface ObjectReads {
  range(url: string, start: number, end: number, etag?: string): Promise<{ bytes: Buffer; size: number; etag: string }>;
  head(url: string): Promise<RemoteObject | undefined>;
}

let relay: ObjectReads | undefined;

/** This thread's ranged GETs and HEADs go through `reads` (a worker's relay to the main thread). */
export function readThrough(reads: ObjectReads): void {
  relay = reads;
}

/** The object at `url`, or undefined when there is none (a missing bucket is an error). */
export async function headObject(url: string): Promise<RemoteObject | undefined> {
  if (relay) return relay.head(url);
  const u = parseRemote(url);
  try {
    const r = await send<{ ContentLength?: number; ETag?: string; LastModified?: Date }>(url, 'read', (s) => new s.HeadObjectCommand({ Bucket: u.bucket, Key: u.key }));
    return { url, key: u.key, size: r.ContentLength ?? 0, etag: r.ETag ?? '', modified: r.LastModified?.getTime() ?? 0 };
  } catch (e) {
    if (e instanceof StorageError && e.code === 'NoSuchKey') {
      await assertBucket(u); // HEAD of a key in a missing bucket says only 404
      return undefined;
    }
    throw e;
  }
}

async function assertBucket(u: RemoteUrl): Promise<void> {
  await send(formatRemote(u), 'read', (s) => new s.HeadBucketCommand({ Bucket: u.bucket })).catch((e: StorageError) => {
    throw e.code === 'NoSuchKey' ? new StorageError(`s3://${u.bucket}: no such bucket: check the bucket name and the endpoint (AWS_ENDPOINT_URL)`, 'NoSuchBucket') : e;
  });
}

/**
 * The objects under a prefix (every key that starts with it), in key order, component by
 * component (`a/b` before `a-c`), the order a local folder walk gives the same names.
 */
export async function listObjects(prefixUrl: string): Promise<RemoteObject[]> {
  const u = parseRemote(prefixUrl);
  const out: RemoteObject[] = [];
  let token: string | undefined;
  do {
    const page = await send<{ Contents?: { Key?: string; Size?: number; ETag?: string; LastModified?: Date }[]; NextContinuationToken?: string; IsTruncated?: boolean }>(
      prefixUrl,
      'list',
      (s) => new s.ListObjectsV2Command({ Bucket: u.bucket, Prefix: u.key, ContinuationToken: token }),
    );
    for (const c of page.Contents ?? []) {
      if (!c.Key) continue;
      out.push({ url: `s3://${u.bucket}/${c.Key}`, key: c.Key, size: c.Size ?? 0, etag: c.ETag ?? '', modified: c.LastModified?.getTime() ?? 0 });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out.sort((a, b) => compareKeys(a.key, b.key));
}

/** Keys compared as paths: component by component, each by its characters. */
export function compareKeys(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Bytes start..end-1 of an object; `etag` makes it fail if the object was replaced since. */
export async function getRange(url: string, start: number, end: number, etag?: string): Promise<{ bytes: Buffer; size: number; etag: string }> {
  if (relay) return relay.range(url, start, end, etag);
  const u = parseRemote(url);
  const r = await send<{ Body?: { transformToByteArray(): Promise<Uint8Array> }; ContentRange?: string; ContentLength?: number; ETag?: string }>(
    url,
    'read',
    (s) => new s.GetObjectCommand({ Bucket: u.bucket, Key: u.key, Range: `bytes=${start}-${end - 1}`, IfMatch: etag }),
  ).catch(async (e: StorageError) => {
    if (e.code === 'NoSuchKey' && etag) throw new StorageError(`${url}: the object was deleted while it was read (at byte ${start})`, 'ObjectGone');
    if (e.code === 'NoSuchKey') await assertBucket(u);
    if (e.code === 'PreconditionFailed') throw new StorageError(`${url}: the object was replaced while it was read (at byte ${start})`, 'ObjectChanged');
    throw e;
  });
  let bytes: Buffer;
  try {
    bytes = Buffer.from((await r.Body!.transformToByteArray()).buffer);
  } catch (e) {
    throw new StorageError(`${url}: the connection broke while reading bytes ${start}..${end - 1}: ${(e as Error).message}`, 'ReadBroken');
  }
  const total = /\/(\d+)$/.exec(r.ContentRange ?? '');
  const size = total ? Number(total[1]) : bytes.length;
  const want = Math.min(end, size) - start;
  if (bytes.length !== want) throw new StorageError(`${url}: ${bytes.length} bytes came for a range of ${want} at byte ${start} (the object is truncated or changed)`, 'ShortRead');
  return { bytes, size, etag: r.ETag ?? '' };
}

/** Read size and read-ahead of remote streams: at most (AHEAD + 1) × CHUNK bytes in memory per open object. */
export const READ_CHUNK_BYTES = 8 << 20;
const READ_AHEAD = 2;
/** The first range is small, so the reader starts on it while the read-ahead ranges are on their way. */
const FIRST_RANGE_BYTES = 1 << 20;

/**
 * An object as a byte stream of ranged GETs, READ_AHEAD ranges requested ahead of the reader
 * (from the moment the first range tells the size, before the reader has its first bytes),
 * every range pinned to the first one's ETag: an object replaced or deleted mid-read is an
 * error naming it, never a mix of two versions. The bytes are hashed as they pass; an object
 * read to its end leaves its sha256 for the manifest (read-hashes.ts), so it is not read twice.
 */
export async function* readObject(url: string, chunkBytes = READ_CHUNK_BYTES): AsyncIterable<Buffer> {
  const first = await getRange(url, 0, Math.min(chunkBytes, FIRST_RANGE_BYTES));
  const hash = createHash('sha256').update(first.bytes);
  const pending: Promise<{ bytes: Buffer }>[] = [];
  let next = first.bytes.length;
  const request = () => {
    if (next >= first.size) return;
    const p = getRange(url, next, Math.min(next + chunkBytes, first.size), first.etag);
    p.catch(() => {}); // awaited in order below; a later range's failure must not go unhandled first
    pending.push(p);
    next += chunkBytes;
  };
  for (let i = 0; i < READ_AHEAD; i++) request();
  if (first.bytes.length) yield first.bytes;
  while (pending.length) {
    const { bytes } = await pending.shift()!;
    request();
    hash.update(bytes);
    yield bytes;
  }
  rememberReadHash(url, first.etag, first.size, hash.digest('hex'));
}

/**
 * Writes a small object in one PUT (atomic: readers see the old object or the whole new one).
 * `sha256`: the bytes' sha256 (hex) when the caller has it, sent as their checksum (the store
 * refuses bytes that do not match it) and stored as metadata, so they are not hashed again here.
 */
export async function putObject(url: string, body: string | Uint8Array, opts: { ifAbsent?: boolean; sha256?: string } = {}): Promise<void> {
  const u = parseRemote(url);
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const sha = opts.sha256 ? Buffer.from(opts.sha256, 'hex') : createHash('sha256').update(bytes).digest();
  await send(url, 'write', (s) =>
    new s.PutObjectCommand({
      Bucket: u.bucket,
      Key: u.key,
      Body: bytes,
      ChecksumSHA256: sha.toString('base64'),
      ContentMD5: createHash('md5').update(bytes).digest('base64'),
      Metadata: { sha256: opts.sha256 ?? sha.toString('hex') },
      ...(opts.ifAbsent ? { IfNoneMatch: '*' } : {}),
    }),
  );
}

/** A whole small object (markers, manifests, counts files), or undefined when there is none. */
export async function getObject(url: string): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of readObject(url)) chunks.push(c);
  } catch (e) {
    if (e instanceof StorageError && e.code === 'NoSuchKey') return undefined;
    throw e;
  }
  return Buffer.concat(chunks);
}

/** The sha256 midpack stored with an object it wrote (metadata), if any. */
export async function storedSha256(url: string): Promise<{ sha256: string; size: number } | undefined> {
  const u = parseRemote(url);
  try {
    const r = await send<{ Metadata?: Record<string, string>; ContentLength?: number }>(url, 'read', (s) => new s.HeadObjectCommand({ Bucket: u.bucket, Key: u.key }));
    const sha = r.Metadata?.sha256;
    return sha ? { sha256: sha, size: r.ContentLength ?? 0 } : undefined;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'NoSuchKey') return undefined;
    throw e;
  }
}

export async function deleteObjects(urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const u = parseRemote(url);
    await send(url, 'delete', (s) => new s.DeleteObjectCommand({ Bucket: u.bucket, Key: u.key }));
  }
}

/** Multipart part size: S3 wants at least 5 MiB for every part but the last. */
export const PART_BYTES = 16 << 20;

/**
 * Uploads a local file as one object: a multipart upload (lib-storage) whose parts each carry
 * their SHA-256, which the server checks before it accepts the part; the object appears only
 * when the upload completes, and a failed upload is aborted (no part stays behind). The file's
 * sha256 is stored as metadata, so a resumed run finds what is already there.
 */
export async function uploadFile(path: string, url: string, sha256: string): Promise<void> {
  const u = parseRemote(url);
  const [{ Upload }, client] = await Promise.all([import('@aws-sdk/lib-storage'), s3Client()]);
  const upload = new Upload({
    client,
    params: { Bucket: u.bucket, Key: u.key, Body: createReadStream(path, { highWaterMark: 1 << 20 }), ChecksumAlgorithm: 'SHA256', Metadata: { sha256 } },
    partSize: PART_BYTES,
    queueSize: 4,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (e) {
    throw storageError(url, e, 'upload');
  }
}

/** CopyObject's limit: a larger object is copied as a multipart upload of UploadPartCopy ranges. */
export const COPY_OBJECT_MAX_BYTES = 5 * 1024 ** 3;
const COPY_PART_BYTES = 1024 ** 3;

/**
 * Copies an object of `size` bytes inside the store, server-side (no bytes pass through this
 * machine): one CopyObject up to 5 GiB, else a multipart upload whose parts are 1 GiB
 * UploadPartCopy ranges of the source, pinned to its ETag. `sha256` is stored as metadata.
 */
export async function copyObjectAny(from: RemoteObject, to: string, sha256: string): Promise<void> {
  if (from.size <= COPY_OBJECT_MAX_BYTES) return copyObject(from.url, to, sha256);
  const t = parseRemote(to);
  const f = parseRemote(from.url);
  const [s, client] = await Promise.all([sdk(), s3Client()]);
  const { UploadId } = await client.send(new s.CreateMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, Metadata: { sha256 } })).catch((e) => {
    throw storageError(to, e, 'copy');
  });
  try {
    const parts: { PartNumber: number; ETag: string }[] = [];
    for (let start = 0; start < from.size; start += COPY_PART_BYTES) {
      const end = Math.min(start + COPY_PART_BYTES, from.size) - 1;
      const r = await client.send(new s.UploadPartCopyCommand({ Bucket: t.bucket, Key: t.key, UploadId, PartNumber: parts.length + 1, CopySource: `${f.bucket}/${encodeURIComponent(f.key).replace(/%2F/g, '/')}`, CopySourceRange: `bytes=${start}-${end}`, CopySourceIfMatch: from.etag || undefined }));
      parts.push({ PartNumber: parts.length + 1, ETag: r.CopyPartResult!.ETag! });
    }
    await client.send(new s.CompleteMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (e) {
    await client.send(new s.AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId })).catch(() => {});
    throw storageError(to, e, 'copy');
  }
}

/** Copies an object inside the store (no bytes pass through this machine). */
export async function copyObject(from: string, to: string, sha256: string): Promise<void> {
  const f = parseRemote(from);
  const t = parseRemote(to);
  await send(to, 'copy', (s) =>
    new s.CopyObjectCommand({ Bucket: t.bucket, Key: t.key, CopySource: `${f.bucket}/${encodeURIComponent(f.key).replace(/%2F/g, '/')}`, MetadataDirective: 'REPLACE', Metadata: { sha256 } }),
  );
}

/**
 * Concatenates objects into one, server-side: a multipart upload whose parts are copies of the
 * sources (UploadPartCopy). Every part but the last must be at least 5 MiB, so sources smaller
 * than that are read and sent as bytes, joined with their neighbours; a server without
 * UploadPartCopy gets every part as bytes.
 */
export async function concatObjects(sources: readonly RemoteObject[], to: string, sha256: string): Promise<void> {
  const t = parseRemote(to);
  const s = await sdk();
  const client = await s3Client();
  const { UploadId } = await client.send(new s.CreateMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, Metadata: { sha256 } })).catch((e) => {
    throw storageError(to, e, 'upload');
  });
  try {
    const parts = await uploadConcatParts(sources, to, UploadId!);
    await client.send(new s.CompleteMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (e) {
    await client.send(new s.AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId })).catch(() => {});
    throw storageError(to, e, 'upload');
  }
}

const MIN_PART = 5 << 20;

async function uploadConcatParts(sources: readonly RemoteObject[], to: string, uploadId: string): Promise<{ PartNumber: number; ETag: string }[]> {
  const s = await sdk();
  const client = await s3Client();
  const t = parseRemote(to);
  const parts: { PartNumber: number; ETag: string }[] = [];
  let held: Buffer[] = [];
  let heldBytes = 0;
  let copyWorks = true;
  const sendHeld = async () => {
    if (!heldBytes) return;
    const body = Buffer.concat(held, heldBytes);
    const r = await client.send(new s.UploadPartCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId, PartNumber: parts.length + 1, Body: body, ContentMD5: createHash('md5').update(body).digest('base64') }));
    checkPartEtag(to, parts.length + 1, r.ETag, body);
    parts.push({ PartNumber: parts.length + 1, ETag: r.ETag! });
    [held, heldBytes] = [[], 0];
  };
  for (const [i, src] of sources.entries()) {
    const last = i === sources.length - 1;
    if (copyWorks && src.size >= MIN_PART && heldBytes === 0) {
      try {
        const f = parseRemote(src.url);
        const r = await client.send(new s.UploadPartCopyCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId, PartNumber: parts.length + 1, CopySource: `${f.bucket}/${f.key}`, CopySourceIfMatch: src.etag || undefined }));
        parts.push({ PartNumber: parts.length + 1, ETag: r.CopyPartResult!.ETag! });
        continue;
      } catch (e) {
        if ((e as { name?: string }).name !== 'NotImplemented') throw e;
        copyWorks = false; // this server copies no parts: send the bytes
      }
    }
    for await (const chunk of readObject(src.url)) {
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes >= PART_BYTES) await sendHeld();
    }
    if (heldBytes >= MIN_PART || last) await sendHeld();
  }
  await sendHeld();
  return parts;
}

/** A part's ETag is the MD5 of its bytes (servers without SSE-KMS): a mismatch means the bytes were damaged on the way. */
function checkPartEtag(url: string, part: number, etag: string | undefined, body: Buffer): void {
  const md5 = createHash('md5').update(body).digest('hex');
  const got = (etag ?? '').replace(/"/g, '');
  if (/^[0-9a-f]{32}$/.test(got) && got !== md5) throw new StorageError(`${url}: part ${part} arrived damaged (ETag ${got}, MD5 of the bytes sent ${md5})`, 'BadDigest');
}

/** A lock object's body: who holds the prefix. */
export interface RemoteLockBody {
  pid: number;
  host: string;
  started: string;
  token: string;
}

/**
 * Takes the lock object at `url` for this process: a conditional PUT (If-None-Match: *), which
 * S3, MinIO and R2 refuse when the object exists; read back, so a server that ignores the
 * condition still loses only a true race. Returns the holder when someone else has it.
 */
export async function takeRemoteLock(url: string): Promise<{ body: RemoteLockBody } | { heldBy: RemoteLockBody | undefined }> {
  const body: RemoteLockBody = { pid: process.pid, host: hostname(), started: new Date().toISOString(), token: createHash('sha256').update(`${process.pid}${Math.random()}${Date.now()}`).digest('hex').slice(0, 16) };
  const existing = await readLockObject(url);
  if (existing) return { heldBy: existing };
  try {
    await putObject(url, JSON.stringify(body) + '\n', { ifAbsent: true });
  } catch (e) {
    if (e instanceof StorageError && (e.code === 'PreconditionFailed' || e.code === 'ConditionalRequestConflict')) return { heldBy: await readLockObject(url) };
    throw e;
  }
  const now = await readLockObject(url);
  return now?.token === body.token ? { body } : { heldBy: now };
}

export async function readLockObject(url: string): Promise<RemoteLockBody | undefined> {
  const b = await getObject(url);
  if (!b) return undefined;
  try {
    const v = JSON.parse(b.toString('utf8')) as RemoteLockBody;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
