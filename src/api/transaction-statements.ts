/** Transaction control: BEGIN / START TRANSACTION with an isolation level, COMMIT, ROLLBACK. */
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { nodeBody, type AnyNode } from '../sql/ast.js';
import type { IsolationLevel } from './transaction.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { result } from './statement-support.js';

/** BEGIN / START TRANSACTION options: the isolation level, if one is given. */
function isolationOf(b: AnyNode): IsolationLevel | undefined {
  let level: IsolationLevel | undefined;
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const d = nodeBody<AnyNode>(o);
    if (d.defname !== 'transaction_isolation') continue;
    const c = nodeBody<AnyNode>(d.arg as Node);
    level = checkIsolation(String((c.sval as { sval?: string } | undefined)?.sval ?? ''));
  }
  return level;
}

export function checkIsolation(v: string): IsolationLevel {
  const l = v.toLowerCase();
  // READ UNCOMMITTED is READ COMMITTED in PostgreSQL too.
  if (l === 'read committed' || l === 'read uncommitted') return 'read committed';
  if (l === 'repeatable read') return 'repeatable read';
  if (l === 'serializable') {
    throw new QuireError('0A000', 'SERIALIZABLE isolation is not supported', {
      hint: 'Use REPEATABLE READ: each transaction reads one snapshot, and two transactions rewriting the same table cannot both commit.',
    });
  }
  throw new QuireError('22023', `invalid value for parameter "transaction_isolation": "${v}"`);
}

/** BEGIN / START TRANSACTION, COMMIT, ROLLBACK. */
export async function transactionStatement(host: UtilityHost, b: AnyNode): Promise<QueryResult> {
  const kind = b.kind as string;
  if (kind === 'TRANS_STMT_BEGIN' || kind === 'TRANS_STMT_START') {
    const notices = host.session.inTransaction ? ['there is already a transaction in progress'] : [];
    const isolation = isolationOf(b);
    if (!host.session.inTransaction) host.beginTransaction({ implicit: false, ...(isolation !== undefined ? { isolation } : {}) });
    return result('BEGIN', kind === 'TRANS_STMT_START' ? 'START TRANSACTION' : 'BEGIN', { notices });
  }
  if (kind === 'TRANS_STMT_COMMIT') {
    const notices = host.session.inTransaction ? [] : ['there is no transaction in progress'];
    if (host.session.inTransaction) {
      try {
        host.commitTransaction();
      } catch (e) {
        // A COMMIT that cannot apply ends the transaction all the same, as a failed COMMIT does.
        host.rollbackTransaction();
        await host.cursors.rollback();
        throw e;
      }
    }
    await host.cursors.commit();
    return result('COMMIT', 'COMMIT', { notices });
  }
  if (kind === 'TRANS_STMT_ROLLBACK') {
    const notices = host.session.inTransaction ? [] : ['there is no transaction in progress'];
    if (host.session.inTransaction) host.rollbackTransaction();
    await host.cursors.rollback();
    return result('ROLLBACK', 'ROLLBACK', { notices });
  }
  throw new QuireError('0A000', `transaction statement ${kind.replace('TRANS_STMT_', '')} is not supported`);
}
