/** chr(int4): the character with that code point (UTF-8 is the only encoding). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';

registerScalar('chr', {
  args: ['int4'],
  returns: T.text,
  fn: (_c: EvalContext, n: number) => {
    if (n < 0) throw err(SQLSTATE.invalidParameterValue, 'character number must be positive');
    if (n === 0) throw err(SQLSTATE.programLimitExceeded, 'null character not permitted');
    if (n > 0x10ffff) throw err(SQLSTATE.programLimitExceeded, `requested character too large for encoding: ${n}`);
    if (n >= 0xd800 && n <= 0xdfff) throw err(SQLSTATE.programLimitExceeded, `requested character not valid for encoding: ${n}`);
    return String.fromCodePoint(n);
  },
});
