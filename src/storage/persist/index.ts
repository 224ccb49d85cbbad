/**
 * Database directories per catalog: Database.create({ path }) opens one, and every Database sharing
 * the catalog (server connections made with connect()) syncs through the same store.
 *
 * The store itself (write-ahead log, table files, the directory lock and its exit handlers) is loaded
 * when the first directory is opened: a database held in memory never needs it, and it would otherwise
 * be parsed, compiled and kept resident in every process that imports Quire.
 */
import type { Catalog } from '../catalog.js';
import type { DirectoryStore, StoreOptions } from './store.js';

const stores = new WeakMap<Catalog, DirectoryStore>();

/** Opens the directory, loads its tables into `catalog`, and returns the views' SQL to replay. */
export async function openStore(dir: string, catalog: Catalog, opts: StoreOptions = {}): Promise<string[]> {
  const { DirectoryStore } = await import('./store.js');
  const store = DirectoryStore.open(dir, opts);
  try {
    const views = store.load(catalog);
    stores.set(catalog, store);
    return views;
  } catch (e) {
    store.close();
    throw e;
  }
}

/** The store of a catalog, or of the shared catalog a connection's or transaction's view stands on. */
export function storeFor(catalog: Catalog): DirectoryStore | undefined {
  for (let c: object | null = catalog; c !== null; c = Object.getPrototypeOf(c) as object | null) {
    const s = stores.get(c as Catalog);
    if (s !== undefined) return s;
  }
  return undefined;
}

export type { DirectoryStore, StoreOptions };
export { recordMemory } from './record-memory.js';
