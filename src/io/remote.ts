/**
 * Where a path points: this machine's filesystem, or an object store (`s3://bucket/prefix`).
 * The one test of "is this remote" for every option that takes a path (inputs, --out,
 * --outcomes, benchmark files, counts files): callers ask here, never match the scheme
 * themselves. Loads no SDK: a local run pays nothing for it.
 */
export function isRemote(path: string): boolean {
  return /^s3:\/\//i.test(path);
}

/** An object-store location: `s3://bucket/key` (a key that ends in `/`, or is empty, is a prefix). */
export interface RemoteUrl {
  bucket: string;
  key: string;
}

export class RemotePathError extends Error {}

export function parseRemote(url: string): RemoteUrl {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(url);
  if (!m) throw new RemotePathError(`${url}: not an s3:// URL (s3://bucket/key)`);
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new RemotePathError(`${url}: "${bucket}" is not a valid bucket name (3-63 lowercase letters, digits, dots and hyphens)`);
  return { bucket, key: m[2]! };
}

export function formatRemote(u: RemoteUrl): string {
  return `s3://${u.bucket}/${u.key}`;
}

/** Joins path pieces onto a local path or an s3:// URL (path.join would fold `s3://` to `s3:/`). */
export function joinRemote(base: string, ...parts: string[]): string {
  const pieces = [base.replace(/\/+$/, ''), ...parts.map((p) => p.replace(/^\/+|\/+$/g, ''))].filter((p) => p !== '');
  return pieces.join('/');
}

/** The name a remote object or prefix gives the path-based namers: `/bucket/key`, as if mounted at the root. */
export function remoteAsPath(url: string): string {
  const u = parseRemote(url);
  return `/${u.bucket}/${u.key}`.replace(/\/+$/, '');
}
