import { it } from 'vitest';
import { Numeric } from '../../src/common/numeric.js';
import { pgOne, startPg } from './pg-helper.js';
it('scratch', async () => {
  const pg = await startPg();
  for (const v of ['5000', '3000', '1000', '500', '200', '-200', '5999.9']) {
    const e = (await pgOne(pg, `select exp($1::numeric)::text`, [v])).value!;
    const o = Numeric.parse(v).exp().toString();
    let i = 0;
    while (i < e.length && e[i] === o[i]) i++;
    console.log(v, e.length, o.length, i, e.slice(i - 5, i + 20), o.slice(i - 5, i + 20));
  }
});
