/**
 * Token ids with their character ranges, in growable typed arrays: a 40 MB document's ten
 * million tokens take 12 bytes each outside the JavaScript heap, not three arrays of boxed numbers.
 */
export class TokenBuffer {
  ids: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.ids = new Int32Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Room for `more` tokens past the current length. */
  reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.ids.length) return;
    let cap = this.ids.length * 2;
    while (cap < need) cap *= 2;
    const grow = (a: Int32Array) => {
      const b = new Int32Array(cap);
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.ids = grow(this.ids);
    this.starts = grow(this.starts);
    this.ends = grow(this.ends);
  }

  push(id: number, start: number, end: number): void {
    if (this.length === this.ids.length) this.reserve(1);
    this.ids[this.length] = id;
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.length++;
  }

  /** Exact-length copies (the buffers are transferred to the main thread). */
  finish(): { ids: Int32Array; starts: Int32Array; ends: Int32Array } {
    const n = this.length;
    return { ids: this.ids.slice(0, n), starts: this.starts.slice(0, n), ends: this.ends.slice(0, n) };
  }
}
