import { Rng } from '../../core/random.js';
import { MinHeap } from '../../core/heap.js';
import { buildImportGraph, comparePaths, type SourceFile } from './imports.js';

/**
 * The file orderings of a repository document. Each takes the kept files and returns
 * them in document order; all are pure functions of the files, the seed and the
 * repository name, never of the order the files arrived in.
 */
export const ORDERINGS = ['alpha', 'dependency', 'random'] as const;
export type Ordering = (typeof ORDERINGS)[number];
export type OrderWeights = Partial<Record<Ordering, number>>;

/** Parses `alpha=0.3,dependency=0.5,random=0.2`; the weights need not sum to 1. */
export function parseOrderWeights(spec: string): OrderWeights {
  const weights: OrderWeights = {};
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)(?:=(.+))?$/.exec(part);
    const name = m?.[1] as Ordering | undefined;
    const weight = m?.[2] === undefined ? 1 : Number(m[2]);
    if (!name || !(ORDERINGS as readonly string[]).includes(name)) {
      throw new Error(`--order: unknown ordering "${part}" (known: ${ORDERINGS.join(', ')})`);
    }
    if (!Number.isFinite(weight) || weight < 0) throw new Error(`--order: weight of ${name} must be a number >= 0, got "${m?.[2]}"`);
    weights[name] = weight;
  }
  if (!Object.values(weights).some((w) => w > 0)) throw new Error(`--order: at least one ordering needs a positive weight, got "${spec}"`);
  return weights;
}

/** The ordering of one repository: a seeded draw by weight, from the seed and the repository name. */
export function chooseOrdering(weights: OrderWeights, seed: number, repo: string): Ordering {
  return new Rng(seed, 'repo-ordering', repo).weighted(weights as Record<Ordering, number>);
}

export function alphaOrder<F extends SourceFile>(files: readonly F[]): F[] {
  return [...files].sort((a, b) => comparePaths(a.path, b.path));
}

export function randomOrder<F extends SourceFile>(files: readonly F[], seed: number, repo: string): F[] {
  return new Rng(seed, 'repo-random-order', repo).shuffle(alphaOrder(files));
}

export function dependencyOrder<F extends SourceFile>(files: readonly F[], graph = buildImportGraph(files)): F[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  return topologicalOrder(alphaOrder(files).map((f) => f.path), graph).map((p) => byPath.get(p)!);
}

export function orderFiles<F extends SourceFile>(ordering: Ordering, files: readonly F[], seed: number, repo: string): F[] {
  if (ordering === 'alpha') return alphaOrder(files);
  if (ordering === 'random') return randomOrder(files, seed, repo);
  return dependencyOrder(files);
}

/**
 * Orders nodes so that each comes after the nodes it depends on (`deps.get(n)`), ties
 * broken alphabetically. Cycles are broken deterministically: the strongly connected
 * components form a DAG, ordered by Kahn's algorithm with the component's smallest path
 * as tie-break; inside a component the same rule runs on the component alone, and when
 * every remaining member still waits on another, the one waiting on the fewest goes first
 * (ties alphabetical). With no cycle this is a plain alphabetical topological order.
 */
export function topologicalOrder(nodes: readonly string[], deps: ReadonlyMap<string, readonly string[]>): string[] {
  const sorted = [...nodes].sort(comparePaths);
  const known = new Set(sorted);
  const depsOf = (n: string) => (deps.get(n) ?? []).filter((d) => known.has(d) && d !== n);
  const components = stronglyConnected(sorted, depsOf);
  const componentOf = new Map<string, number>();
  components.forEach((c, i) => c.forEach((n) => componentOf.set(n, i)));
  const componentDeps = components.map((c) => {
    const s = new Set<number>();
    for (const n of c) for (const d of depsOf(n)) if (componentOf.get(d) !== componentOf.get(n)) s.add(componentOf.get(d)!);
    return [...s];
  });
  const keys = components.map((c) => c[0]!); // members are sorted, so [0] is the smallest path
  const order = kahn(
    components.map((_, i) => i),
    (i) => componentDeps[i]!,
    (a, b) => comparePaths(keys[a]!, keys[b]!),
  );
  const out: string[] = [];
  for (const i of order) {
    const members = components[i]!;
    if (members.length === 1) out.push(members[0]!);
    else out.push(...orderInsideCycle(members, depsOf));
  }
  return out;
}

function orderInsideCycle(members: string[], depsOf: (n: string) => string[]): string[] {
  const inside = new Set(members);
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const n of members) {
    const ds = depsOf(n).filter((d) => inside.has(d));
    waitingOn.set(n, ds.length);
    for (const d of ds) (dependents.get(d) ?? dependents.set(d, []).get(d)!).push(n);
  }
  // The member waiting on the fewest others goes first, ties alphabetical. Entries whose
  // count went down since they were queued are stale and skipped (lazy deletion).
  const queue = new MinHeap<[number, string]>((a, b) => (a[0] - b[0] || comparePaths(a[1], b[1])) < 0);
  for (const n of members) queue.push([waitingOn.get(n)!, n]);
  const out: string[] = [];
  const done = new Set<string>();
  while (queue.size) {
    const [count, n] = queue.pop()!;
    if (done.has(n) || count !== waitingOn.get(n)) continue;
    done.add(n);
    out.push(n);
    for (const m of dependents.get(n) ?? []) {
      if (done.has(m)) continue;
      const k = waitingOn.get(m)! - 1;
      waitingOn.set(m, k);
      queue.push([k, m]);
    }
  }
  return out;
}

/** Kahn's algorithm with a priority queue, so among ready nodes the smallest goes first. */
function kahn(nodes: number[], depsOf: (n: number) => number[], compare: (a: number, b: number) => number): number[] {
  const remaining = new Map(nodes.map((n) => [n, depsOf(n).length]));
  const dependents = new Map<number, number[]>();
  for (const n of nodes) for (const d of depsOf(n)) (dependents.get(d) ?? dependents.set(d, []).get(d)!).push(n);
  const ready = new MinHeap<number>((a, b) => compare(a, b) < 0);
  for (const [n, k] of remaining) if (k === 0) ready.push(n);
  const out: number[] = [];
  while (ready.size) {
    const n = ready.pop()!;
    out.push(n);
    for (const m of dependents.get(n) ?? []) {
      const k = remaining.get(m)! - 1;
      remaining.set(m, k);
      if (k === 0) ready.push(m);
    }
  }
  return out;
}

/** Tarjan's algorithm, iterative (deep import chains must not overflow the stack). Members sorted. */
export function stronglyConnected(nodes: readonly string[], depsOf: (n: string) => string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: [string, string[], number][] = [[start, depsOf(start), 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const [v, ds] = frame;
      if (frame[2] < ds.length) {
        const w = ds[frame[2]++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, depsOf(w), 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        out.push(component.sort(comparePaths));
      }
    }
  }
  return out;
}
