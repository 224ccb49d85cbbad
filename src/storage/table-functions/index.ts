// Registers every table function (generate_series, read_csv, read_json).
