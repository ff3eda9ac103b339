import { SPECIAL } from '../../doc/specials.js';
import { TextBuilder } from '../../doc/text-builder.js';
import type { Doc, Span } from '../../doc/document.js';

/**
 * The Qwen2.5-Coder repository format, exactly:
 *
 *   <|repo_name|>{repo}\n<|file_sep|>{path}\n{content}\n<|file_sep|>{path}\n{content}...
 *
 * `boundaries` are the character offsets of each `<|file_sep|>`: the places where the
 * `boundary` overlong policy may cut, repeating the header (the text before the first
 * boundary, `<|repo_name|>{repo}\n`) at the top of each chunk.
 */
export interface RepoFile {
  path: string;
  content: string;
}

export interface FormattedRepo {
  text: string;
  special_spans: Span[];
  boundaries: number[];
}

export interface FormatOptions {
  /**
   * A directory-tree listing placed after the repository name (a further documented
   * format): `<|repo_name|>{repo}\n{tree}\n<|file_sep|>...`. It is part of the header.
   */
  tree?: string;
}

export function formatRepoDocument(repo: string, files: readonly RepoFile[], opts: FormatOptions = {}): FormattedRepo {
  const b = new TextBuilder();
  const boundaries = appendRepoDocument(b, repo, files, false, opts);
  const { text, special_spans } = b.build();
  return { text, special_spans, boundaries };
}

/**
 * The repository format appended to a builder (`masked`: out of the loss), without joining it
 * into a text of its own first: an edit sample's context of hundreds of KB is then joined once.
 * Returns the `<|file_sep|>` offsets in the builder's text.
 */
export function appendRepoDocument(b: TextBuilder, repo: string, files: readonly RepoFile[], masked: boolean, opts: FormatOptions = {}): number[] {
  b.special(SPECIAL.repoName, masked).text(`${repo}\n`, masked);
  if (opts.tree !== undefined) b.text(`${opts.tree}\n`, masked);
  return appendRepoFiles(b, files, masked);
}

/** The files of the repository format without its header (`<|file_sep|>{path}\n{content}`, '\n' between): their `<|file_sep|>` offsets. */
export function appendRepoFiles(b: TextBuilder, files: readonly RepoFile[], masked: boolean): number[] {
  const boundaries: number[] = [];
  files.forEach((f, i) => {
    if (i > 0) b.text('\n', masked);
    boundaries.push(b.offset);
    b.special(SPECIAL.fileSep, masked).text(`${f.path}\n`, masked).text(f.content, masked);
  });
  return boundaries;
}

/**
 * Parses a repository document back into files. It trusts only the document's
 * `special_spans`, so a `<|file_sep|>` string inside a file's content stays content.
 */
export function parseRepoDocument(doc: Pick<Doc, 'text' | 'special_spans'>): { repo: string; files: RepoFile[]; tree?: string } {
  const { text } = doc;
  const spans = doc.special_spans ?? [];
  const first = spans[0];
  if (!first || text.slice(first[0], first[1]) !== SPECIAL.repoName || first[0] !== 0) {
    throw new Error('not a repository document: it does not start with a <|repo_name|> special token');
  }
  const seps = spans.filter(([a, z]) => text.slice(a, z) === SPECIAL.fileSep);
  const headerEnd = seps.length ? seps[0]![0] : text.length;
  const header = text.slice(first[1], headerEnd);
  const nl = header.indexOf('\n');
  const repo = nl < 0 ? header : header.slice(0, nl);
  // Whatever follows the name line in the header is the directory tree listing.
  const rest = nl < 0 ? '' : header.slice(nl + 1);
  const tree = rest === '' ? undefined : rest.endsWith('\n') ? rest.slice(0, -1) : rest;
  const files: RepoFile[] = [];
  seps.forEach(([, z], i) => {
    const next = seps[i + 1];
    // Every file but the last is followed by the '\n' that precedes the next <|file_sep|>.
    const end = next ? next[0] - 1 : text.length;
    const body = text.slice(z, end);
    const nl = body.indexOf('\n');
    if (nl < 0) throw new Error(`file ${i} of repository ${repo} has no path line`);
    files.push({ path: body.slice(0, nl), content: body.slice(nl + 1) });
  });
  return tree === undefined ? { repo, files } : { repo, files, tree };
}
