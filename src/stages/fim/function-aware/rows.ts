import type { Doc } from '../../../doc/document.js';
import type { RepoContext } from './select.js';

/**
 * File rows that carry their repository (`kind: text` with string `meta.repo` and `meta.path`)
 * are gathered while consecutive rows share the repository, so function-aware FIM can build the
 * repository's graph; each row then still becomes at most one sample. A group is cut once it
 * holds `maxChars` characters (bounded memory; counted as split). Other documents pass alone.
 */
export function repoOfRow(doc: Doc): { repo: string; path: string } | undefined {
  const { repo, path } = doc.meta;
  return doc.kind === 'text' && typeof repo === 'string' && typeof path === 'string' ? { repo, path } : undefined;
}

export async function* groupRepoRows(docs: AsyncIterable<Doc>, maxChars: number, onSplit: () => void): AsyncIterable<{ doc: Doc; repo?: RepoContext }> {
  let group: Doc[] = [];
  let chars = 0;
  function* flush() {
    if (group.length === 0) return;
    const ctx: RepoContext = { repo: String(group[0]!.meta.repo), files: group.map((d) => ({ path: String(d.meta.path), content: d.text })) };
    for (const doc of group) yield { doc, repo: ctx };
    group = [];
    chars = 0;
  }
  for await (const doc of docs) {
    const row = repoOfRow(doc);
    if (group.length && (!row || row.repo !== group[0]!.meta.repo)) yield* flush();
    if (!row) {
      yield { doc };
      continue;
    }
    if (group.length && chars + doc.text.length > maxChars) {
      onSplit();
      yield* flush();
    }
    group.push(doc);
    chars += doc.text.length;
  }
  yield* flush();
}
