import { SPECIAL } from '../../doc/specials.js';

/**
 * A repository larger than `maxDocChars` characters becomes several documents (parts), cut at
 * file boundaries in the chosen order: part k holds the files after those of part k-1, and each
 * part starts with the repository header (`<|repo_name|>{repo}\n`, and the tree when chosen).
 *
 * The default, 2 Mi characters, is about two bins of L = 262,144 tokens of code (3.5–4 characters
 * a token). The packer cuts a long document into L-token units anyway, so at most every second
 * unit border falls at a part border instead of inside one document. Memory is the reason for the
 * bound: every stage and tokenizer worker holds one part at a time, not the whole repository (a
 * 67M-character repository cost 1.75 GB to prepare and 2.1 GB to pack). Measured by
 * bench:bigrepo: 4 Mi-character parts peaked at 752 MB (prepare) and 961 MB (pack), 2 Mi at 677 and 934.
 */
export const DEFAULT_MAX_DOC_CHARS = 2 << 20;

export interface PartPlan {
  /** Index of the part's first file in the ordered list. */
  from: number;
  /** One past its last file. */
  to: number;
}

/**
 * Greedy, in order: a part takes files while the document stays within `maxDocChars`; a file
 * longer than that on its own is a part alone (files are bounded by --max-file-bytes).
 * The lengths are those formatRepoDocument writes, so a part never passes the limit otherwise.
 */
export function planParts(repo: string, files: readonly { path: string; content: string }[], maxDocChars: number, tree?: string): PartPlan[] {
  const header = SPECIAL.repoName.length + repo.length + 1 + (tree === undefined ? 0 : tree.length + 1);
  const parts: PartPlan[] = [];
  let from = 0;
  let chars = header;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const fileChars = SPECIAL.fileSep.length + f.path.length + 1 + f.content.length;
    const joined = i > from ? chars + 1 + fileChars : chars + fileChars;
    if (i > from && joined > maxDocChars) {
      parts.push({ from, to: i });
      from = i;
      chars = header + fileChars;
    } else chars = joined;
  }
  if (files.length > from || parts.length === 0) parts.push({ from, to: files.length });
  return parts;
}
