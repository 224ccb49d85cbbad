/**
 * Paging a query to its last page and checking what came back, shared by the pager tests
 * (test/cursor) and the paging differential (test/differential/random-paging.test.ts).
 */
import { formatValue } from '../../src/index.js';
import type { Value } from '../../src/common/types.js';
import type { Page, Pager } from '../../src/cursor/pager.js';

/** Every page of `sql` at `fetchSize`, and their rows in the order they were sent. */
export async function pageAll(pager: Pager, sql: string, fetchSize: number, params: unknown[] = []): Promise<{ rows: Value[][]; pages: Page[] }> {
  const pages: Page[] = [];
  let page = await pager.first(sql, { fetchSize, params });
  for (;;) {
    pages.push(page);
    if (page.cursor === null) break;
    if (pages.length > 10_000) throw new Error('runaway paging');
    page = await pager.next(page.cursor);
  }
  return { rows: pages.flatMap((p) => p.rows), pages };
}

/** The pages' rows as PostgreSQL prints them (UTC, as the differential sessions are set up). */
export function pageText(pages: readonly Page[]): (string | null)[][] {
  return pages.flatMap((p) => p.rows.map((r) => r.map((v, i) => formatValue(v, p.columns[i]!.type, { timezone: 'UTC' }))));
}

/** A row key that tells bigints, infinities and -0 apart from their look-alikes. */
export const rowKey = (r: readonly (Value | string | null)[]): string =>
  JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : Object.is(v, -0) ? '-0' : v));

export const multiset = (rows: readonly (readonly (Value | string | null)[])[]): string[] => rows.map(rowKey).sort();

/**
 * null when the pages have the shape paging promises for a result of `total` rows: no empty page
 * (unless the result is empty), a cursor on every page but the last, every page but the last full.
 */
export function pageShapeProblem(pages: readonly Page[], total: number, fetchSize: number): string | null {
  for (let i = 0; i < pages.length; i++) {
    const n = pages[i]!.rows.length;
    if (total > 0 && n === 0) return `page ${i + 1} is empty`;
    if (i < pages.length - 1 && n !== fetchSize) return `page ${i + 1} of ${pages.length} has ${n} rows`;
  }
  const want = Math.max(1, Math.ceil(total / fetchSize));
  return pages.length === want ? null : `${pages.length} pages for ${total} rows (want ${want})`;
}
