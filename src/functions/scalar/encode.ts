/** encode(bytea, format): the bytes as text in the hex, escape or base64 format. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import { QuireError } from '../../common/errors.js';
import type { EvalContext } from '../eval-context.js';
import { encodeBase64, encodeEscape, encodeHex } from '../../common/bytea.js';

registerScalar('encode', {
  args: ['bytea', 'text'],
  returns: T.text,
  fn: (_c: EvalContext, v: string, format: string) => {
    switch (format.toLowerCase()) {
      case 'hex':
        return encodeHex(v);
      case 'escape':
        return encodeEscape(v);
      case 'base64':
        return encodeBase64(v);
      default:
        throw new QuireError('22023', `unrecognized encoding: "${format}"`);
    }
  },
});
