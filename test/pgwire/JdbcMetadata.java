import java.sql.*;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Run by test/pgwire/clients.test.ts: java -cp postgresql.jar:. JdbcMetadata <port> <password>.
 * What DBeaver does through pgjdbc at connect time and when a table is opened: DatabaseMetaData
 * calls, the SQL probes it sends itself, then a setFetchSize read and LIMIT/OFFSET paging.
 * Prints one "key=value" line per step; a step that fails prints "key!=SQLSTATE message" and the
 * program goes on, so the test sees every failure at once.
 */
public class JdbcMetadata {
  interface Step { String run() throws SQLException; }

  static void step(String key, Step s) {
    try {
      System.out.println(key + "=" + s.run());
    } catch (SQLException e) {
      System.out.println(key + "!=" + e.getSQLState() + " " + e.getMessage().replace('\n', ' '));
    }
  }

  /** Rows of a result set as "a|b|c" joined by ";", reading the named columns. */
  static String rows(ResultSet rs, String... cols) throws SQLException {
    List<String> out = new ArrayList<>();
    while (rs.next()) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < cols.length; i++) {
        if (i > 0) sb.append('|');
        sb.append(rs.getString(cols[i]));
      }
      out.add(sb.toString());
    }
    rs.close();
    return String.join(";", out);
  }

  static String query(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          if (i > 1) sb.append('|');
          sb.append(rs.getString(i));
        }
        out.add(sb.toString());
      }
      return String.join(";", out);
    }
  }

  /** A PreparedStatement with text parameters, as DBeaver binds them; reads the named columns. */
  static String bound(Connection c, String sql, String param, String... cols) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, param);
      return rows(ps.executeQuery(), cols);
    }
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/quire";
    Properties p = new Properties();
    p.setProperty("user", "dbeaver");
    p.setProperty("password", args[1]);
    p.setProperty("ApplicationName", "DBeaver 23.0.0 - Main");
    try (Connection c = DriverManager.getConnection(url, p)) {
      DatabaseMetaData md = c.getMetaData();
      // DBeaver's own connect-time probes (PostgreDataSource / PostgreServerExtension).
      step("version", () -> query(c, "select version()"));
      step("current_database", () -> query(c, "select current_database()"));
      step("current_schema", () -> query(c, "select current_schema(), session_user"));
      step("current_schemas", () -> {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select current_schemas(false)")) {
          rs.next();
          Array a = rs.getArray(1);
          String[] v = (String[]) a.getArray();
          return a.getBaseTypeName() + ":" + String.join(",", v) + ":" + rs.getString(1);
        }
      });
      step("current_schemas_true", () -> query(c, "select current_schemas(true)::text"));
      step("search_path", () -> query(c, "SHOW search_path"));
      step("settings", () -> query(c, "SELECT name, setting FROM pg_catalog.pg_settings WHERE name IN ('standard_conforming_strings', 'server_version_num') ORDER BY name"));
      step("setting_fn", () -> query(c, "select current_setting('server_version_num')::int >= 90000"));
      step("databases", () -> query(c, "SELECT db.oid, db.datname FROM pg_catalog.pg_database db WHERE datallowconn AND NOT datistemplate ORDER BY db.datname"));
      step("namespaces", () -> query(c, "SELECT n.oid, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname NOT LIKE 'pg_toast%' ORDER BY n.nspname"));
      step("roles", () -> query(c, "select rolname, rolsuper from pg_catalog.pg_roles where rolname = current_user"));
      step("privilege", () -> query(c, "select has_table_privilege('t', 'SELECT'), has_schema_privilege('public', 'USAGE'), pg_table_is_visible('t'::regclass)"));
      step("format_type", () -> query(c, "select a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a where a.attrelid = 't'::regclass and a.attnum > 0 order by a.attnum"));
      step("is_visible", () -> query(c, "select c.relname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and pg_catalog.pg_table_is_visible(c.oid) and c.relkind = 'r' order by 1"));
      step("any_array", () -> query(c, "select n.nspname from pg_catalog.pg_namespace n where n.nspname = ANY (current_schemas(true)) order by 1"));
      // DBeaver's navigator reads the catalog tables directly, with the namespace / relation OID bound.
      step("dbeaver_recovery", () -> query(c, "SELECT pg_catalog.pg_is_in_recovery()"));
      step("dbeaver_database", () -> bound(c, "SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=?", "quire", "oid", "datname", "datallowconn"));
      step("dbeaver_schemas", () -> bound(c, "SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass WHERE nspname <> ? ORDER BY nspname", "pg_toast", "nspname", "description"));
      step("dbeaver_tables", () -> bound(c, "SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.relkind='p' then true else false end as is_partitioned FROM pg_catalog.pg_class c LEFT OUTER JOIN pg_catalog.pg_class t ON t.oid=c.reltoastrelid LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.relrewrite LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass WHERE c.relnamespace=(select oid from pg_catalog.pg_namespace where nspname = ?) AND c.relkind not in ('i','I','c') ORDER BY c.oid", "public", "relname", "relkind", "is_partitioned", "description"));
      step("dbeaver_columns", () -> bound(c, "SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid FROM pg_catalog.pg_attribute a INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid) LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum) LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.relname=? ORDER BY a.attnum", "t", "attname", "atttypid", "attnum", "attnotnull", "def_value"));
      step("dbeaver_constraints", () -> bound(c, "SELECT c.oid,c.*,t.relname as tabrelname,case when c.contype='c' then substr(pg_get_constraintdef(c.oid), 7) else null end consrc_copy FROM pg_catalog.pg_constraint c INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid WHERE t.relname=? AND c.contype<>'f' ORDER BY c.oid", "t", "conname"));
      step("dbeaver_types", () -> bound(c, "SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description FROM pg_catalog.pg_type t LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid WHERE t.typname IS NOT NULL AND (c.relkind IS NULL OR c.relkind = 'c') AND t.typnamespace=(select oid from pg_catalog.pg_namespace where nspname = ?) AND t.typname IN ('int4', 'text', '_text') ORDER BY t.oid", "pg_catalog", "typname", "typcategory", "typelem", "typarray"));
      step("dbeaver_extensions", () -> query(c, "SELECT e.oid, e.extname FROM pg_catalog.pg_extension e ORDER BY e.oid"));
      step("dbeaver_setting", () -> bound(c, "select setting from pg_catalog.pg_settings where name = ?", "search_path", "setting"));
      // pgjdbc's DatabaseMetaData (what DBeaver's navigator falls back to).
      step("schemas", () -> rows(md.getSchemas(), "TABLE_SCHEM"));
      step("tables", () -> rows(md.getTables(null, "public", "%", null), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
      step("columns", () -> rows(md.getColumns(null, "public", "t", "%"), "COLUMN_NAME", "TYPE_NAME", "DATA_TYPE", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "ORDINAL_POSITION"));
      step("pk", () -> rows(md.getPrimaryKeys(null, "public", "t"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ"));
      step("typeinfo", () -> {
        ResultSet rs = md.getTypeInfo();
        List<String> names = new ArrayList<>();
        while (rs.next()) names.add(rs.getString("TYPE_NAME") + ":" + rs.getInt("DATA_TYPE"));
        rs.close();
        return String.join(",", names);
      });
      step("indexes", () -> rows(md.getIndexInfo(null, "public", "t", false, true), "INDEX_NAME"));
      // Opening the table: a fetch-size read in a transaction, then DBeaver's LIMIT/OFFSET pages.
      step("fetch", () -> {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          st.setFetchSize(100);
          long sum = 0;
          int n = 0;
          try (ResultSet rs = st.executeQuery("SELECT * FROM big ORDER BY id")) {
            ResultSetMetaData m = rs.getMetaData();
            String cols = m.getColumnName(1) + ":" + m.getColumnTypeName(1) + "," + m.getColumnName(3) + ":" + m.getColumnTypeName(3);
            while (rs.next()) { sum += rs.getLong(1); n++; }
            c.commit();
            return cols + " rows=" + n + " sum=" + sum;
          }
        } finally {
          c.setAutoCommit(true);
        }
      });
      for (int offset : new int[] {0, 200, 49900}) {
        final int off = offset;
        step("page" + offset, () -> {
          try (PreparedStatement ps = c.prepareStatement("SELECT * FROM big ORDER BY id\nLIMIT 200 OFFSET " + off)) {
            ps.setFetchSize(200);
            try (ResultSet rs = ps.executeQuery()) {
              int n = 0; long first = -1, last = -1;
              while (rs.next()) { if (n == 0) first = rs.getLong(1); last = rs.getLong(1); n++; }
              return n + ":" + first + "-" + last;
            }
          }
        });
      }
      step("prepare", () -> {
        try (Statement st = c.createStatement()) {
          st.execute("PREPARE q (int) AS SELECT label FROM big WHERE id = $1");
        }
        String r = query(c, "EXECUTE q(42)");
        try (Statement st = c.createStatement()) {
          st.execute("DEALLOCATE q");
        }
        return r;
      });
      System.out.println("done=ok");
    }
  }
}
