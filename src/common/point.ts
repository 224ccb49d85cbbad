/**
 * Values of the geometric type point: two float8 coordinates. PostgreSQL gives point no btree ordering
 * and no `=` operator (so no ORDER BY, GROUP BY or DISTINCT on it); Quire stores, reads and prints them.
 */
export class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}

  /** A Map key for internal uses that must not crash (the binder refuses grouping by point). */
  hashKey(): string {
    return `${this.x},${this.y}`;
  }
}
