/**
 * Decodes a page's bytes the way a browser picks the encoding: byte order mark, then the
 * charset of the HTTP Content-Type, then a <meta charset> or http-equiv declaration in the
 * first 1024 bytes, or later in the `<head>` (a browser that meets one while parsing reloads the
 * page in that encoding; archives insert their own scripts before the page's declaration); without
 * any, UTF-8 when the bytes are valid UTF-8, else windows-1252.
 * Node's TextDecoder (full ICU) knows the legacy encodings (shift_jis, gbk, windows-1251...).
 */
export interface Decoded {
  text: string;
  charset: string;
  /** Where the charset came from. */
  via: 'bom' | 'header' | 'meta' | 'sniff';
}

const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const m = contentType ? /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType) : null;
  return m ? m[1]!.toLowerCase() : undefined;
}

/** A label TextDecoder accepts, or undefined. UTF-16 declared inside the bytes means UTF-8 (the HTML rule). */
function usableLabel(label: string | undefined, fromMeta: boolean): string | undefined {
  if (!label) return undefined;
  try {
    const enc = new TextDecoder(label).encoding;
    return fromMeta && enc.startsWith('utf-16') ? 'utf-8' : enc;
  } catch {
    return undefined;
  }
}

/** How far a declaration is looked for: the prescan's 1024 bytes, then the `<head>` within this many. */
const PRESCAN_BYTES = 1024;
const HEAD_SCAN_BYTES = 32768;

/** The charset a `<meta>` declares in the first 1024 bytes, else in the `<head>` (before `</head>` or `<body`). */
function metaCharset(bytes: Uint8Array): string | undefined {
  const scan = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEAD_SCAN_BYTES)).toString('latin1');
  const early = META_CHARSET.exec(scan.slice(0, PRESCAN_BYTES))?.[1];
  if (early) return early;
  const headEnd = scan.search(/<\/head\s*>|<body[\s>]/i);
  return META_CHARSET.exec(headEnd >= 0 ? scan.slice(0, headEnd) : scan)?.[1];
}

export function decodeHtml(bytes: Uint8Array, headerCharset?: string): Decoded {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), charset: 'utf-8', via: 'bom' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), charset: 'utf-16le', via: 'bom' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), charset: 'utf-16be', via: 'bom' };
  const fromHeader = usableLabel(headerCharset, false);
  if (fromHeader) return { text: new TextDecoder(fromHeader).decode(bytes), charset: fromHeader, via: 'header' };
  const fromMeta = usableLabel(metaCharset(bytes), true);
  if (fromMeta) return { text: new TextDecoder(fromMeta).decode(bytes), charset: fromMeta, via: 'meta' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'utf-8', via: 'sniff' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), charset: 'windows-1252', via: 'sniff' };
  }
}

/** How far into a body binary sniffing looks: a format's header sits in its first bytes. */
export const SNIFF_BYTES = 4096;

/** Binary content (images, archives) has NUL bytes or many control characters in its first bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  }
  return n > 0 && control / n > 0.05;
}
