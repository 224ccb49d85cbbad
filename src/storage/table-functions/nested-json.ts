/**
 * JSON text of a value a file reader decoded (a Parquet map, an Arrow Map or list of lists): int64s
 * stay exact, a number while safe and their digits beyond, where JSON.stringify would throw.
 */
export function nestedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? (Number.isSafeInteger(Number(x)) ? Number(x) : x.toString()) : x));
}
