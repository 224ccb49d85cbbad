// The slice of better-sqlite3's API the benchmark uses. The package ships no types and @types/better-sqlite3
// is not a dependency; declaring only what is called keeps the type-check honest without adding one.
declare module 'better-sqlite3' {
  interface Statement {
    run(...params: unknown[]): unknown;
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
    raw(toggle?: boolean): Statement;
    pluck(toggle?: boolean): Statement;
  }
  class Database {
    constructor(filename?: string, options?: Record<string, unknown>);
    prepare(sql: string): Statement;
    exec(sql: string): this;
    pragma(source: string): unknown;
    transaction<F extends (...args: never[]) => unknown>(fn: F): F;
    close(): void;
  }
  export default Database;
}
