/** Registers every built-in table function; import once at startup (side effect only). */
import { generateSeries } from './generate-series.js';
import { readCsv } from './read-csv.js';
import { readJson } from './read-json.js';
import { registerTableFunction } from './table-function.js';

registerTableFunction(generateSeries);
registerTableFunction(readCsv);
registerTableFunction(readJson);

export { generateSeries, readCsv, readJson };
