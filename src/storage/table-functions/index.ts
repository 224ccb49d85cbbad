/** Registers every built-in table function; import once at startup (side effect only). */
import { generateSeries } from './generate-series.js';
import { generateSubscripts } from './generate-subscripts.js';
import { readArrow } from './read-arrow.js';
import { readCsv, readCsvRejects } from './read-csv.js';
import { readJson } from './read-json.js';
import { readParquet } from './read-parquet.js';
import { registerTableFunction } from './table-function.js';
import { unnest } from './unnest.js';
import { regexpMatches, regexpSplitToTable } from './regexp-rows.js';

registerTableFunction(generateSeries);
registerTableFunction(generateSubscripts);
registerTableFunction(readCsv);
registerTableFunction(readCsvRejects);
registerTableFunction(readJson);
registerTableFunction(readParquet);
registerTableFunction(readArrow);
registerTableFunction(unnest);
registerTableFunction(regexpMatches);
registerTableFunction(regexpSplitToTable);
// DuckDB's names for the same readers (their type inference is always on here).
registerTableFunction({ ...readCsv, name: 'read_csv_auto' });
registerTableFunction({ ...readJson, name: 'read_json_auto' });

export { generateSeries, readArrow, readCsv, readCsvRejects, readJson, readParquet, unnest };
