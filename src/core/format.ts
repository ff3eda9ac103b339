/**
 * A number as toLocaleString('en-US') writes it, a whole number's digits grouped by commas
 * without ICU: the first toLocaleString of a process sets up ICU's number formatting (about
 * 40 ms, on the tail of every pack and run that prints its summary), and each later call builds
 * a formatter (about 14 ms of a pack's tail for one report). Other numbers (fractions, -0,
 * beyond 2^53) are left to toLocaleString.
 */
export function groupedNumber(x: number): string {
  return Number.isSafeInteger(x) && !Object.is(x, -0) ? String(x).replace(/\B(?=(\d{3})+$)/g, ',') : x.toLocaleString('en-US');
}
