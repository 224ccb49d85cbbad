/**
 * A FOREIGN KEY constraint, kept with the referencing (child) table: which of its columns must match
 * which unique key of the referenced (parent) table, and what happens to child rows when the parent's
 * key goes away. Enforcement lives in src/api/foreign-key-checks.ts.
 */

/** PostgreSQL's confupdtype / confdeltype letters: NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT. */
export type ReferentialAction = 'a' | 'r' | 'c' | 'n' | 'd';

export interface ForeignKey {
  readonly name: string;
  /** Referencing columns of the child table. */
  readonly cols: readonly number[];
  /** The referenced table's name (a catalog key). */
  readonly parent: string;
  /** Referenced columns of the parent, one per child column; they form a PRIMARY KEY or UNIQUE key of it. */
  readonly parentCols: readonly number[];
  readonly onUpdate: ReferentialAction;
  readonly onDelete: ReferentialAction;
  /** MATCH FULL ('f') rejects keys that are partly NULL; MATCH SIMPLE ('s') skips any key with a NULL. */
  readonly match: 'f' | 's';
  /** ON DELETE SET NULL / SET DEFAULT (cols): only these child columns change (absent: all of `cols`). */
  readonly deleteSetCols?: readonly number[];
}

/** PostgreSQL's spelling of an action, as pg_get_constraintdef and information_schema show it. */
export function actionName(a: ReferentialAction): string {
  return a === 'a' ? 'NO ACTION' : a === 'r' ? 'RESTRICT' : a === 'c' ? 'CASCADE' : a === 'n' ? 'SET NULL' : 'SET DEFAULT';
}

/** A column list as pg_get_constraintdef prints it: names quoted where they need it. */
function columnNames(names: readonly string[], cols: readonly number[], quote: (s: string) => string): string {
  return cols.map((c) => quote(names[c]!)).join(', ');
}

/**
 * pg_get_constraintdef's text of a foreign key: `FOREIGN KEY (pid) REFERENCES p(id) ON DELETE
 * CASCADE`. `parentColumns` is null when the referenced table is gone.
 */
export function foreignKeyDef(fk: ForeignKey, childColumns: readonly string[], parentColumns: readonly string[] | null, quote: (s: string) => string): string {
  let s = `FOREIGN KEY (${columnNames(childColumns, fk.cols, quote)}) REFERENCES ${quote(fk.parent)}`;
  if (parentColumns !== null) s += `(${columnNames(parentColumns, fk.parentCols, quote)})`;
  if (fk.match === 'f') s += ' MATCH FULL';
  if (fk.onUpdate !== 'a') s += ` ON UPDATE ${actionName(fk.onUpdate)}`;
  if (fk.onDelete !== 'a') s += ` ON DELETE ${actionName(fk.onDelete)}${fk.deleteSetCols !== undefined ? ` (${columnNames(childColumns, fk.deleteSetCols, quote)})` : ''}`;
  return s;
}
