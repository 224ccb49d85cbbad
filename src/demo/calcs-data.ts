/**
 * The `calcs` table of the OpenSearch SQL test data (Tableau's calcs data set), exactly as the
 * OpenSearch pagination PR shows it for `SELECT * FROM calcs` with fetch_size 30: 17 rows, the
 * columns in the response schema's order. keyword maps to text, double to double precision.
 */
export const CALCS_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ["bool3", "boolean"],
  ["int0", "integer"],
  ["time1", "timestamp"],
  ["bool2", "boolean"],
  ["int2", "integer"],
  ["int1", "integer"],
  ["str3", "text"],
  ["int3", "integer"],
  ["str1", "text"],
  ["str2", "text"],
  ["time0", "timestamp"],
  ["datetime0", "timestamp"],
  ["num1", "double precision"],
  ["num0", "double precision"],
  ["datetime1", "timestamp"],
  ["num4", "double precision"],
  ["bool1", "boolean"],
  ["key", "text"],
  ["num3", "double precision"],
  ["bool0", "boolean"],
  ["num2", "double precision"],
  ["str0", "text"],
  ["date3", "timestamp"],
  ["date2", "timestamp"],
  ["date1", "timestamp"],
  ["date0", "timestamp"],
  ["zzz", "text"],
];

/** Timestamps are 'YYYY-MM-DD HH:MM:SS' strings, as in the seed's JSON. */
export const CALCS_ROWS: readonly (readonly (string | number | boolean | null)[])[] = [
  [true, 1, "1970-01-01 19:36:22", false, 5, -3, "e", 8, "CLAMP ON LAMPS", "one", "1899-12-30 21:07:32", "2004-07-09 10:17:35", 8.42, 12.3, null, null, true, "key00", -11.52, true, 17.86, "FURNITURE", "1986-03-20 00:00:00", "1977-04-20 00:00:00", "2004-04-01 00:00:00", "2004-04-15 00:00:00", "a"],
  [null, null, "1970-01-01 02:05:25", false, -4, -6, "e", 13, "CLOCKS", "two", "1900-01-01 13:48:48", "2004-07-26 12:30:34", 6.71, -12.3, null, 10.85, true, "key01", -9.31, false, 16.73, "FURNITURE", null, "1995-09-03 00:00:00", "2004-04-02 00:00:00", "1972-07-04 00:00:00", "b"],
  [null, null, "1970-01-01 09:33:31", false, 5, null, "e", 2, "AIR PURIFIERS", "three", "1900-01-01 18:21:08", "2004-08-02 07:59:23", 9.78, 15.7, null, -13.47, true, "key02", -12.17, null, null, "OFFICE SUPPLIES", "1997-02-02 00:00:00", "1997-09-19 00:00:00", "2004-04-03 00:00:00", "1975-11-12 00:00:00", "c"],
  [null, null, "1970-01-01 22:50:16", false, -5, -4, "e", 5, "BINDER ACCESSORIES", null, "1900-01-01 18:51:48", "2004-07-05 13:14:20", 7.43, -15.7, null, -6.05, false, "key03", -7.25, true, 8.51, "OFFICE SUPPLIES", null, "1980-07-26 00:00:00", "2004-04-04 00:00:00", "2004-06-04 00:00:00", "d"],
  [true, 7, null, true, 3, null, null, 9, "BINDER CLIPS", "five", "1900-01-01 15:01:19", "2004-07-28 23:30:22", 9.05, 3.5, null, 8.32, false, "key04", 12.93, false, 6.46, "OFFICE SUPPLIES", "1996-03-07 00:00:00", "1997-05-30 00:00:00", "2004-04-05 00:00:00", "2004-06-19 00:00:00", "e"],
  [false, 3, "1970-01-01 19:57:33", true, 2, null, null, 7, "BINDING MACHINES", "six", "1900-01-01 08:59:39", "2004-07-22 00:30:23", 9.38, -3.5, null, 10.71, false, "key05", -19.96, null, 8.98, "OFFICE SUPPLIES", "1979-04-01 00:00:00", "1980-11-07 00:00:00", "2004-04-06 00:00:00", null, "f"],
  [null, 8, null, false, 9, null, "e", 18, "BINDING SUPPLIES", null, "1900-01-01 07:37:48", "2004-07-28 06:54:50", 16.42, 0.0, null, null, null, "key06", 10.93, true, 11.69, "OFFICE SUPPLIES", null, "1977-02-08 00:00:00", "2004-04-07 00:00:00", null, "g"],
  [false, null, "1970-01-01 19:48:23", true, 0, 2, "e", 3, "BUSINESS ENVELOPES", "eight", "1900-01-01 19:45:54", "2004-07-12 17:30:16", 11.38, null, null, -10.24, null, "key07", 3.64, false, 17.25, "OFFICE SUPPLIES", null, "1974-05-03 00:00:00", "2004-04-08 00:00:00", null, "h"],
  [false, null, "1970-01-01 22:20:14", false, -6, 3, null, 17, "ANSWERING MACHINES", "nine", "1900-01-01 09:00:59", "2004-07-04 22:49:28", 9.47, 10.0, null, 4.77, null, "key08", -13.38, null, null, "TECHNOLOGY", "1983-05-22 00:00:00", "1976-09-09 00:00:00", "2004-04-09 00:00:00", null, "i"],
  [null, 8, null, false, -9, 3, "e", 2, "BUSINESS COPIERS", "ten", "1900-01-01 20:36:00", "2004-07-23 21:13:37", 12.4, null, null, null, true, "key09", -10.56, null, 11.5, "TECHNOLOGY", null, "1998-08-12 00:00:00", "2004-04-10 00:00:00", null, "j"],
  [null, 4, "1970-01-01 00:05:57", false, -3, null, "e", 11, "CD-R MEDIA", "eleven", "1900-01-01 01:31:32", "2004-07-14 08:16:44", 10.32, null, null, 19.39, true, "key10", -4.79, true, 6.8, "TECHNOLOGY", "1999-08-20 00:00:00", "1974-03-17 00:00:00", "2004-04-11 00:00:00", null, "k"],
  [null, 10, "1970-01-01 04:40:49", true, -4, -8, null, 2, "CONFERENCE PHONES", "twelve", "1899-12-30 22:15:40", "2004-07-25 15:22:26", 2.47, null, null, 3.82, true, "key11", -10.81, false, 3.79, "TECHNOLOGY", null, "1994-04-20 00:00:00", "2004-04-12 00:00:00", null, "l"],
  [true, null, "1970-01-01 04:48:07", true, 0, null, null, 11, "CORDED KEYBOARDS", null, "1900-01-01 13:53:46", "2004-07-17 14:01:56", 12.05, null, null, 3.38, false, "key12", -6.62, null, null, "TECHNOLOGY", null, "2001-02-04 00:00:00", "2004-04-13 00:00:00", null, "m"],
  [true, 4, null, true, 4, null, null, 18, "CORDLESS KEYBOARDS", "fourteen", "1900-01-01 04:57:51", "2004-07-19 22:21:31", 10.37, null, null, null, false, "key13", -18.43, null, 13.04, "TECHNOLOGY", "1996-05-13 00:00:00", "1988-01-05 00:00:00", "2004-04-14 00:00:00", null, "n"],
  [null, 11, "1970-01-01 18:58:41", true, -8, null, "e", 18, "DOT MATRIX PRINTERS", "fifteen", "1899-12-30 22:42:43", "2004-07-31 11:57:52", 7.1, null, null, -14.21, false, "key14", 6.84, true, null, "TECHNOLOGY", "1986-11-08 00:00:00", "1972-07-12 00:00:00", "2004-04-15 00:00:00", null, "o"],
  [true, 4, null, false, -9, null, "e", 11, "DVD", "sixteen", "1899-12-30 22:24:08", "2004-07-14 07:43:00", 16.81, null, null, 6.75, null, "key15", -10.98, false, 10.98, "TECHNOLOGY", null, "1995-06-04 00:00:00", "2004-04-16 00:00:00", null, "p"],
  [null, 8, "1970-01-01 12:33:57", false, 6, -9, null, 0, "ERICSSON", null, "1900-01-01 11:58:29", "2004-07-28 12:34:28", 7.12, null, null, null, null, "key16", -2.6, null, 7.87, "TECHNOLOGY", "1992-01-18 00:00:00", "2002-04-27 00:00:00", "2004-04-17 00:00:00", null, "q"],
];
