/** ceil/floor on Numeric via trunc (the Numeric API has no ceil/floor of its own). */
import { Numeric } from '../../../common/numeric.js';

export function numericCeil(x: Numeric): Numeric {
  if (!x.isFinite()) return x;
  const t = x.trunc(0);
  return x.cmp(t) > 0 ? t.add(Numeric.fromInt(1)) : t;
}

export function numericFloor(x: Numeric): Numeric {
  if (!x.isFinite()) return x;
  const t = x.trunc(0);
  return x.cmp(t) < 0 ? t.sub(Numeric.fromInt(1)) : t;
}
