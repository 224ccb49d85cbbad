/** EXPLAIN [ANALYZE | LOGICAL] of a query or a DECLARE. */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { T } from '../common/types.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { result } from './statement-support.js';

export async function explain(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  let analyze = false;
  let logical = false;
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const d = nodeBody<AnyNode>(o);
    const name = d.defname as string;
    const arg = d.arg ? nodeBody<AnyNode>(d.arg as Node) : undefined;
    const on = arg === undefined || ['true', 'on', '1'].includes(String(arg.sval ?? arg.boolval ?? (arg.ival as AnyNode | undefined)?.ival ?? 'true').toLowerCase()) || arg.boolval === true;
    if (name === 'analyze') analyze = on;
    else if (name === 'logical') logical = on;
    else if (name === 'format') {
      const f = String((arg?.sval as string | undefined) ?? 'text').toLowerCase();
      if (f !== 'text') throw new QuireError('0A000', `EXPLAIN format ${f} is not supported`);
    }
  }
  let q = b.query as Node;
  // EXPLAIN DECLARE shows the plan of the cursor's query (it declares nothing).
  if (nodeTag(q) === 'DeclareCursorStmt') q = nodeBody<AnyNode>(q).query as Node;
  if (nodeTag(q) !== 'SelectStmt') throw new QuireError('0A000', 'EXPLAIN supports SELECT statements');
  if (logical && analyze) throw new QuireError('0A000', 'EXPLAIN options LOGICAL and ANALYZE cannot be used together', { hint: 'The logical plan is not executed; use EXPLAIN ANALYZE for the physical plan with timings.' });
  const lines = await host.explainLines(nodeBody<SelectStmt>(q), params, analyze, logical);
  return result('EXPLAIN', 'EXPLAIN', { columns: [{ name: 'QUERY PLAN', type: T.text }], rows: lines.map((l) => [l]), rowCount: lines.length });
}
