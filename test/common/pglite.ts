/**
 * PGlite, the tests' PostgreSQL, started from a data directory made once (test/global-setup.ts keeps
 * it as a tarball per PGlite version) instead of by its own initdb: a fresh PGlite spent about 5 s of
 * CPU starting, one restored from the tarball about 1 s, and over a hundred test files start one.
 * Without the tarball (a file run outside the global setup) it starts the usual way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/** Where the global setup leaves the data directory's tarball, in the environment the test workers inherit. */
export const PGLITE_DATADIR_ENV = 'QUIRE_TEST_PGLITE_DATADIR';

let tarball: Buffer | null | undefined;

/** A new PGlite (not yet ready: await its waitReady, or its first query). */
export function newPGlite(options: PGliteOptions = {}): PGlite {
  if (tarball === undefined) {
    const path = process.env[PGLITE_DATADIR_ENV];
    tarball = path !== undefined && path !== '' && existsSync(path) ? readFileSync(path) : null;
  }
  return new PGlite(tarball === null || options.dataDir !== undefined ? options : { ...options, loadDataDir: new Blob([tarball]) });
}

/** A new PGlite, ready. */
export async function readyPGlite(options: PGliteOptions = {}): Promise<PGlite> {
  const pg = newPGlite(options);
  await pg.waitReady;
  return pg;
}
