import { type, type DataType, type TypeName } from '../../common/types.js';

/**
 * A column type as a table file or log record names it. An interval's modifier was once stored as
 * the bare field mask (below 2^16); it is now PostgreSQL's encoding, the mask in the high 16 bits and
 * the precision in the low ones, so a directory written before reads its `interval day` columns as
 * such (the precision was never kept: those read as full precision).
 */
export function storedType(name: TypeName, typmod: number): DataType {
  if (name === 'interval' && typmod >= 0 && typmod < 0x10000) return type(name, typmod === 0x7fff ? -1 : (typmod << 16) | 0xffff);
  return type(name, typmod);
}
