import pLimit from 'p-limit';

/**
 * Runs `work` over a stream with at most `concurrency` calls in flight (p-limit) and yields the
 * results in input order, whatever order the answers arrive in, so reruns write the same bytes.
 * At most twice `concurrency` items are started ahead of the one being yielded: memory stays
 * bounded by the setting, never by the input. Shared by the stages that ask a model.
 */
export async function* mapInOrder<T, R>(items: AsyncIterable<T>, concurrency: number, work: (item: T) => Promise<R>): AsyncIterable<R> {
  const limit = pLimit(concurrency);
  const window: Promise<R>[] = [];
  const windowSize = Math.max(2, concurrency * 2);
  for await (const item of items) {
    const started = limit(() => work(item));
    // A failure surfaces when its turn comes to be yielded, not as an unhandled rejection before.
    started.catch(() => {});
    window.push(started);
    if (window.length >= windowSize) yield await window.shift()!;
  }
  while (window.length) yield await window.shift()!;
}
