/**
 * Database directories per catalog: Database.create({ path }) opens one, and every Database sharing
 * the catalog (server connections made with connect()) syncs through the same store.
 */
import type { Catalog } from '../catalog.js';
import { DirectoryStore, type StoreOptions } from './store.js';

const stores = new WeakMap<Catalog, DirectoryStore>();

/** Opens the directory, loads its tables into `catalog`, and returns the views' SQL to replay. */
export function openStore(dir: string, catalog: Catalog, opts: StoreOptions = {}): string[] {
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

export function storeFor(catalog: Catalog): DirectoryStore | undefined {
  return stores.get(catalog);
}

export { DirectoryStore, type StoreOptions };
