/**
 * Markdown back to the plain text a reader sees: what evaluations match snippets against, so
 * `**bold**`, `# ` and `| cell |` do not count as missing words. Fenced code stays as it is.
 */
export function markdownToPlainText(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue; // table rule
    // A heading's text is not a list item, though it may start like one ("## 1. Setup").
    const unquoted = line.replace(/^(\s*>)+\s?/, '');
    const heading = /^\s{0,3}#{1,6}\s+/.exec(unquoted);
    const body = heading ? unquoted.slice(heading[0].length) : unquoted.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '');
    out.push(
      body
        // Text that only looks like a list marker or a heading was escaped by the renderer.
        .replace(/^(\s*\d{1,9})\\([.)])/, '$1$2')
        .replace(/^(\s*)\\([-+*#>])/, '$1$2')
        .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
        // Emphasis with asterisks may sit inside a word (H*ij*, *I**n*: a subscript in italics), as CommonMark
        // allows; only a span without spaces, so a gender star ("Kund*innen ... Mitarbeiter*innen") stays.
        .replace(/\*([^\s*]+)\*/g, '$1')
        .replace(/(^|[^\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?=[^\w*]|$)/g, '$1$2')
        .replace(/`([^`]*)`/g, '$1')
        .replace(/^\s*\|\s*/, '')
        .replace(/\s*(?<!\\)\|\s*$/, '')
        .replace(/\s(?<!\\)\|\s/g, ' ')
        .replace(/\\\|/g, '|'),
    );
  }
  return out.join('\n');
}
