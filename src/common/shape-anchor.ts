/**
 * V8 throws away optimized code when an object shape (hidden class) it checks dies, and the shapes of a
 * class's instances die with its last instance: one full GC between two queries is enough. Operators
 * that build per-query state objects would then run their hot loops unoptimized again on every query.
 * Keeping one small instance of such a class alive for the life of the process keeps its shapes, so the
 * code optimized by one query serves the next.
 */
const anchors: object[] = [];

/** Keeps `instance` alive for good (it should be small) and returns it. */
export function anchorShape<T extends object>(instance: T): T {
  anchors.push(instance);
  return instance;
}
