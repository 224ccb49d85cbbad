/** decode(text, format): bytes from their hex, escape or base64 text. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import { QuireError } from '../../common/errors.js';
import type { EvalContext } from '../eval-context.js';
import { decodeBase64, decodeEscape, decodeHex } from '../../common/bytea.js';

registerScalar('decode', {
  args: ['text', 'text'],
  returns: T.bytea,
  fn: (_c: EvalContext, s: string, format: string) => {
    switch (format.toLowerCase()) {
      case 'hex':
        return decodeHex(s);
      case 'escape':
        return decodeEscape(s);
      case 'base64':
        return decodeBase64(s);
      default:
        throw new QuireError('22023', `unrecognized encoding: "${format}"`);
    }
  },
});
