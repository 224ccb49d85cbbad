/**
 * Just enough of psql to replay PostgreSQL's regression tests: split a script into statements the way psql
 * does, and parse psql's aligned output (as stored in the regression suite's expected/*.out files).
 */

export interface ScriptItem {
  kind: 'sql' | 'meta';
  /** Statement text including its terminating semicolon (sql), or the whole meta-command line (meta). */
  text: string;
  /** 0-based line of the item's first and last character. Output follows the echo of `endLine`. */
  startLine: number;
  endLine: number;
  /** For COPY ... FROM STDIN: the data lines up to (not including) `\.`. */
  copyData?: string[];
}

/**
 * psql sends a statement when it sees a semicolon outside quotes, comments, dollar quotes and parentheses
 * (psqlscan.l); lines starting with a backslash outside a statement are meta-commands.
 */
export function splitScript(text: string): { items: ScriptItem[]; lines: string[]; copyDataLines: Set<number> } {
  const lines = text.split('\n');
  const items: ScriptItem[] = [];
  const copyDataLines = new Set<number>();
  let buf = '';
  let bufStart = -1;
  let inQuote: string | null = null; // "'" or '"'
  let dollar: string | null = null;
  let blockDepth = 0;
  let paren = 0;
  let beginDepth = 0;
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln];
    if (buf.trim() === '' && inQuote === null && dollar === null && blockDepth === 0 && /^\s*\\/.test(line)) {
      items.push({ kind: 'meta', text: line.trim(), startLine: ln, endLine: ln });
      buf = '';
      continue;
    }
    let i = 0;
    while (i < line.length) {
      const ch = line[i];
      const next = line[i + 1];
      if (inQuote !== null) {
        buf += ch;
        if (ch === inQuote) {
          if (next === inQuote) {
            buf += next;
            i += 2;
            continue;
          }
          inQuote = null;
        }
        i++;
        continue;
      }
      if (dollar !== null) {
        if (line.startsWith(dollar, i)) {
          buf += dollar;
          i += dollar.length;
          dollar = null;
          continue;
        }
        buf += ch;
        i++;
        continue;
      }
      if (blockDepth > 0) {
        if (ch === '*' && next === '/') {
          blockDepth--;
          buf += '*/';
          i += 2;
          continue;
        }
        if (ch === '/' && next === '*') {
          blockDepth++;
          buf += '/*';
          i += 2;
          continue;
        }
        buf += ch;
        i++;
        continue;
      }
      if (ch === '-' && next === '-') {
        // A line comment: psql keeps it in the query buffer only if a statement is in progress.
        if (buf.trim() !== '') buf += line.slice(i);
        break;
      }
      if (ch === '/' && next === '*') {
        if (buf.trim() === '') bufStart = ln;
        blockDepth++;
        buf += '/*';
        i += 2;
        continue;
      }
      if (buf.trim() === '' && !/\s/.test(ch)) bufStart = ln;
      if (ch === "'" || ch === '"') {
        inQuote = ch;
        buf += ch;
        i++;
        continue;
      }
      if (ch === '$') {
        const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(line.slice(i));
        // $1 parameters and identifiers containing $ are not dollar quotes.
        const prev = i > 0 ? line[i - 1] : ' ';
        if (m !== null && !/[A-Za-z0-9_]/.test(prev)) {
          dollar = m[0];
          buf += m[0];
          i += m[0].length;
          continue;
        }
      }
      if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_$]/.test(line[i - 1] ?? ' ')) {
        // psqlscan.l: inside CREATE FUNCTION/PROCEDURE, BEGIN (ATOMIC) ... END and CASE ... END nest, and
        // semicolons within them do not end the statement.
        const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(line.slice(i))![0];
        if (/^\s*create\s+(or\s+replace\s+)?(function|procedure)\b/i.test(buf)) {
          const w = word.toLowerCase();
          if (w === 'begin' || w === 'case') beginDepth++;
          else if (w === 'end' && beginDepth > 0) beginDepth--;
        }
        if (buf.trim() === '') bufStart = ln;
        buf += word;
        i += word.length;
        continue;
      }
      if (ch === '(') paren++;
      if (ch === ')' && paren > 0) paren--;
      if (ch === ';' && paren === 0 && beginDepth === 0) {
        // psql sends the statement with its semicolon (visible e.g. in pg_cursors.statement).
        const stmt = buf.trim() === '' ? '' : `${buf.trim()};`;
        if (stmt !== '') {
          const item: ScriptItem = { kind: 'sql', text: stmt, startLine: bufStart < 0 ? ln : bufStart, endLine: ln };
          items.push(item);
          if (/^copy\b[\s\S]*\bfrom\s+stdin\b/i.test(stmt)) {
            // Data follows the line with the COPY, up to a line holding only "\.".
            const data: string[] = [];
            let k = ln + 1;
            while (k < lines.length && lines[k] !== '\\.') {
              data.push(lines[k]);
              copyDataLines.add(k);
              k++;
            }
            copyDataLines.add(k);
            item.copyData = data;
            buf = '';
            bufStart = -1;
            ln = k;
            i = line.length;
            break;
          }
        }
        buf = '';
        bufStart = -1;
        i++;
        continue;
      }
      buf += ch;
      i++;
    }
    if (buf !== '') buf += '\n';
  }
  return { items, lines, copyDataLines };
}

/** What psql printed for one statement. */
export type Expected =
  | { kind: 'none' }
  | { kind: 'rows'; columns: string[]; rows: string[][] }
  | { kind: 'error'; message: string }
  /** Output we could not interpret (expanded mode, meta-command output, ...). */
  | { kind: 'unparsed'; text: string[] };

const SEPARATOR = /^-+(\+-+)*$/;
const DIAG = /^(NOTICE|WARNING|INFO|DETAIL|HINT|CONTEXT|QUERY|LINE \d+|STATEMENT):/;

/** Splits one aligned-format line into cells using the column widths from the separator line. */
function cellsOf(line: string, widths: number[]): { cells: string[]; cont: boolean[] } {
  const cells: string[] = [];
  const cont: boolean[] = [];
  let off = 0;
  for (let c = 0; c < widths.length; c++) {
    const w = widths[c];
    const raw = line.slice(off, off + w);
    // A '+' in the trailing pad position means the value continues on the next line.
    const wrapped = raw.length === w && raw.endsWith('+');
    cont.push(wrapped);
    cells.push((wrapped ? raw.slice(0, -1) : raw).replace(/^ /, ''));
    off += w + 1;
  }
  return { cells, cont };
}

/**
 * Parses the output block starting at out[j]; returns what it holds and the index after it.
 * `stop` tells whether a line is the echo of the next input line, which ends any block.
 */
export function parseOutputBlock(out: string[], j: number, stop: (k: number) => boolean): { expected: Expected; next: number } {
  let k = j;
  const skipBlank = () => {
    while (k < out.length && out[k].trim() === '' && !stop(k)) k++;
  };
  skipBlank();
  // A zero-column result prints only a dash line and the row count (the dashes can look like a comment echo).
  if (k + 1 < out.length && /^-*$/.test(out[k]) && /^\(\d+ rows?\)$/.test(out[k + 1])) {
    const n = Number(/\d+/.exec(out[k + 1])![0]);
    return { expected: { kind: 'rows', columns: [], rows: Array.from({ length: n }, () => []) }, next: k + 2 };
  }
  // Diagnostics that are not errors (NOTICE, WARNING) precede or follow results; they are not compared.
  while (k < out.length && !stop(k) && /^(NOTICE|WARNING|INFO):/.test(out[k])) {
    k++;
    // DETAIL/HINT lines, and unprefixed continuation lines of a multi-line DETAIL, up to the next block.
    while (
      k < out.length &&
      !stop(k) &&
      out[k].trim() !== '' &&
      !/^(ERROR|NOTICE|WARNING|INFO):/.test(out[k]) &&
      !(k + 1 < out.length && SEPARATOR.test(out[k + 1].trimEnd()))
    )
      k++;
    skipBlank();
  }
  if (k >= out.length || stop(k)) return { expected: { kind: 'none' }, next: k };
  const line = out[k];
  if (line.startsWith('ERROR:')) {
    const message = line.replace(/^ERROR:\s+/, '');
    k++;
    while (k < out.length && !stop(k) && (DIAG.test(out[k]) || /^\s+\^\s*$/.test(out[k]) || /^\s/.test(out[k]))) k++;
    return { expected: { kind: 'error', message }, next: k };
  }
  if (k + 1 < out.length && SEPARATOR.test(out[k + 1].trimEnd()) && out[k].trim() !== '') {
    const sep = out[k + 1].trimEnd();
    const widths = sep.split('+').map((s) => s.length);
    const header = cellsOf(out[k], widths).cells.map((c) => c.trim());
    k += 2;
    const rows: string[][] = [];
    while (k < out.length && !/^\(\d+ rows?\)$/.test(out[k])) {
      if (stop(k) && out[k].trim() !== '') break;
      let { cells, cont } = cellsOf(out[k], widths);
      k++;
      // Multi-line values: keep appending continuation lines while any cell says it continues.
      while (cont.some((x) => x) && k < out.length) {
        const more = cellsOf(out[k], widths);
        cells = cells.map((c, idx) => (cont[idx] ? `${c}\n${more.cells[idx]}` : c));
        cont = more.cont;
        k++;
      }
      rows.push(cells);
    }
    if (k < out.length && /^\(\d+ rows?\)$/.test(out[k])) k++;
    return { expected: { kind: 'rows', columns: header, rows }, next: k };
  }
  const text: string[] = [];
  while (k < out.length && !stop(k)) text.push(out[k++]);
  return { expected: { kind: 'unparsed', text }, next: k };
}

/** Normalises a cell for comparison: psql pads and aligns, we compare trimmed text line by line. */
export function normCell(s: string): string {
  return s
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();
}

/** True when the statement has an ORDER BY outside any parentheses (so its output order is defined). */
export function hasTopLevelOrderBy(sql: string): boolean {
  let depth = 0;
  let q: string | null = null;
  const s = sql.replace(/--[^\n]*/g, ' ');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (q !== null) {
      if (ch === q) q = null;
      continue;
    }
    if (ch === "'" || ch === '"') q = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && (ch === 'o' || ch === 'O') && /^order\s+by\b/i.test(s.slice(i, i + 20)) && !/[A-Za-z0-9_]/.test(s[i - 1] ?? ' ')) return true;
  }
  return false;
}

/** COPY text format: tab-separated, \N for NULL, backslash escapes. */
export function parseCopyText(lines: string[], opts: { delimiter?: string; null?: string } = {}): (string | null)[][] {
  const delim = opts.delimiter ?? '\t';
  const nul = opts.null ?? '\\N';
  const rows: (string | null)[][] = [];
  for (const line of lines) {
    if (line === '') continue;
    rows.push(
      line.split(delim).map((f) => {
        if (f === nul) return null;
        return f.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', v: '\v' })[c] ?? c);
      }),
    );
  }
  return rows;
}

/** CSV (COPY ... WITH CSV): quoted fields, empty unquoted field is NULL. */
export function parseCsv(lines: string[], delimiter = ','): (string | null)[][] {
  const rows: (string | null)[][] = [];
  for (const line of lines) {
    if (line === '') continue;
    const row: (string | null)[] = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        let v = '';
        i++;
        while (i < line.length) {
          if (line[i] === '"' && line[i + 1] === '"') {
            v += '"';
            i += 2;
          } else if (line[i] === '"') {
            i++;
            break;
          } else v += line[i++];
        }
        row.push(v);
        i++; // delimiter
      } else {
        const end = line.indexOf(delimiter, i);
        const f = end < 0 ? line.slice(i) : line.slice(i, end);
        row.push(f === '' ? null : f);
        i = end < 0 ? line.length + 1 : end + 1;
      }
    }
    rows.push(row);
  }
  return rows;
}
