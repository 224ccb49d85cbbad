/**
 * `xs.map(f)` whose result has the same hidden class in every tier. `Array.prototype.map` returns a
 * packed array from the interpreter and a holey one once TurboFan inlines it, so arrays made by the
 * same line changed map as the line's function got optimized or deoptimized (often between one
 * statement and the next), and hot code optimized for one kind was thrown away on meeting the
 * other. Built element by element, the result is packed whatever runs it.
 */
export function packedMap<X, Y>(xs: readonly X[], f: (x: X, i: number) => Y): Y[] {
  const out: Y[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i));
  return out;
}
