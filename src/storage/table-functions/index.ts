/** Registers every built-in table function; import once at startup (side effect only). */
import { generateSeries } from './generate-series.js';
import { readArrow } from './read-arrow.js';
import { readCsv } from './read-csv.js';
import { readJson } from './read-json.js';
import { readParquet } from './read-parquet.js';
import { registerTableFunction } from './table-function.js';
import { unnest } from './unnest.js';

registerTableFunction(generateSeries);
registerTableFunction(readCsv);
registerTableFunction(readJson);
registerTableFunction(readParquet);
registerTableFunction(readArrow);
registerTableFunction(unnest);

export { generateSeries, readArrow, readCsv, readJson, readParquet, unnest };
