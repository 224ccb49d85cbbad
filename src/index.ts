/** Quire's public API. */
export { Database } from './api/database.js';
export type { DatabaseOptions, QueryOptions, QueryResult, RegisterColumnsOptions, ResultColumn, StreamResult } from './api/database.js';
export { runWithLimits, isTimeoutError, type StatementLimits } from './execution/interrupt.js';
export { yieldTurn, type SliceTicker } from './execution/scheduler.js';
export type { ArrowTableLike } from './api/arrow-import.js';
export { AccessPolicy, SERVER_SETTINGS, type AccessOptions } from './api/access-policy.js';
export { QuireError } from './common/errors.js';
export { formatValue } from './common/format-value.js';
export { Numeric } from './common/numeric.js';
export { Interval } from './common/interval.js';
export { T, typeDisplayName, TYPE_OID } from './common/types.js';
export type { DataType, TypeName, Value, Field, Schema } from './common/types.js';
export type { Batch, Column } from './common/column.js';
export { ruleNames } from './optimizer/optimizer.js';
export { Pager, type Page, type PageRequest, type PagerOptions } from './cursor/pager.js';
export { CursorCodec } from './cursor/cursor-codec.js';
export { PagingError } from './cursor/errors.js';
