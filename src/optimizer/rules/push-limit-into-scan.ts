/**
 * push-limit-into-scan: tells a table scan how many rows the limit above it needs.
 *
 *   Limit(count=k, offset=m)              Limit(count=k, offset=m)
 *     Scan(t)                    ==>        Scan(t, fetch=k+m)
 *
 * The scan stops after k+m rows: in-memory tables stop slicing batches, connectors can ask their source
 * for fewer rows (the `fetch` reaches `ScannableSource.scan`). The Limit stays, so a source that ignores
 * the hint is still correct. Fires over a scan, directly or through projections (`SELECT a + 1 FROM t
 * LIMIT 5`). Refuses WITH TIES (the rows after the k-th that tie with it are
 * needed), non-constant limits, and scans that already fetch k+m rows or fewer.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { rowsNeeded } from './limit-support.js';

export const pushLimitIntoScan: OptimizerRule = {
  name: 'push-limit-into-scan',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit') return null;
    // Projections map rows one to one: the scan below them needs the same number of rows.
    const projs: (LogicalPlan & { op: 'project' })[] = [];
    let cur = node.input;
    while (cur.op === 'project') {
      projs.push(cur);
      cur = cur.input;
    }
    if (cur.op !== 'scan') return null;
    const scan = cur;
    const n = rowsNeeded(node);
    if (n === null) return null;
    if (scan.fetch !== undefined && scan.fetch <= n) return null;
    let input: LogicalPlan = { ...scan, fetch: n };
    for (let i = projs.length - 1; i >= 0; i--) input = { ...projs[i]!, input };
    return { ...node, input };
  },
};
