import { comparePaths } from './imports.js';

/**
 * A directory-tree listing of the repository's files, in the style of `tree`:
 * the optional header format that shows the layout before the files.
 *
 *   .
 *   ├── README.md
 *   └── src/
 *       └── main.py
 */
interface TreeNode {
  children: Map<string, TreeNode>;
}

export function directoryTree(paths: readonly string[]): string {
  const root: TreeNode = { children: new Map() };
  for (const p of [...paths].sort(comparePaths)) {
    let node = root;
    for (const seg of p.split('/')) {
      let next = node.children.get(seg);
      if (!next) node.children.set(seg, (next = { children: new Map() }));
      node = next;
    }
  }
  const lines = ['.'];
  const render = (node: TreeNode, indent: string) => {
    const names = [...node.children.keys()].sort(comparePaths);
    names.forEach((name, i) => {
      const child = node.children.get(name)!;
      const last = i === names.length - 1;
      const isDir = child.children.size > 0;
      lines.push(`${indent}${last ? '└── ' : '├── '}${name}${isDir ? '/' : ''}`);
      if (isDir) render(child, indent + (last ? '    ' : '│   '));
    });
  };
  render(root, '');
  return lines.join('\n');
}
