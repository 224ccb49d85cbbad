/**
 * setseed(float8). PostgreSQL returns void; the type system has no void, so this returns a null text
 * (which prints as the empty string, as void does).
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';

registerScalar('setseed', {
  args: ['float8'],
  returns: T.text,
  volatile: true,
  fn: (c: EvalContext, seed: number) => {
    if (!(seed >= -1 && seed <= 1)) {
      throw err(SQLSTATE.invalidParameterValue, `setseed parameter ${seed} is out of allowed range [-1,1]`);
    }
    c.setSeed(seed);
    return null;
  },
});
