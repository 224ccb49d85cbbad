/**
 * A package loaded on first use instead of at startup. Apache Arrow, hyparquet and pg together cost
 * about 45 MB of resident memory and a third of a second of import time, and most sessions never
 * read an Arrow or Parquet file or attach a PostgreSQL server. Binding is synchronous (a reader
 * opens a file's footer while the statement is bound), so the package is required synchronously;
 * Node loads ES modules through require() since 20.19.
 */
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}
