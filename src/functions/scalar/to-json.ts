/** to_json(value): the value as JSON, as json_agg writes its elements (timestamptz in the session time zone). */
import { registerScalar } from '../registry.js';
import { T, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { jsonElement } from '../aggregate/json-agg.js';

registerScalar('to_json', {
  args: ['anyelement'],
  returns: T.json,
  fn: (c: EvalContext, v: Value) => jsonElement(v, T.text, c.timezone),
  specialize: (types) => (c: EvalContext, v: Value) => jsonElement(v, types[0]!, c.timezone),
});
