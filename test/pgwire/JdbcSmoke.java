import java.sql.*;
import java.util.Properties;

/** Run by test/pgwire/clients.test.ts: java -cp postgresql.jar:. JdbcSmoke <port> <password>; prints "key=value" lines. */
public class JdbcSmoke {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/quire";
    Properties p = new Properties();
    p.setProperty("user", "jdbc");
    p.setProperty("password", args[1]);
    try (Connection c = DriverManager.getConnection(url, p)) {
      DatabaseMetaData md = c.getMetaData();
      System.out.println("product=" + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion());
      // setFetchSize pages only outside autocommit: the driver keeps a portal open and Executes
      // it with max_rows = fetch size.
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.setFetchSize(3);
        long sum = 0; int n = 0;
        try (ResultSet rs = st.executeQuery("select a from t order by a")) {
          while (rs.next()) { sum += rs.getLong(1); n++; }
        }
        System.out.println("fetch=rows=" + n + " sum=" + sum);
      }
      c.commit();
      c.setAutoCommit(true);
      // Reused prepared statement: after prepareThreshold (5) executions the driver switches to a
      // named server statement and binary results for the types it knows.
      try (PreparedStatement ps = c.prepareStatement("select a, b, c, d, e, f, g from t where a = ?")) {
        for (int i = 1; i <= 8; i++) {
          ps.setInt(1, i);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            System.out.println("row" + i + "=" + rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getDouble(3) + "|" + rs.getBigDecimal(4) + "|" + rs.getDate(5) + "|" + rs.getTimestamp(6).toInstant() + "|" + rs.getBoolean(7));
          }
        }
      }
      try (Statement st = c.createStatement()) {
        st.executeQuery("select 1/0");
      } catch (SQLException e) {
        System.out.println("error=" + e.getSQLState());
      }
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("show transaction_isolation")) {
        rs.next();
        System.out.println("isolation=" + rs.getString(1));
      }
      try (ResultSet rs = md.getTables(null, "public", "%", new String[] {"TABLE"})) {
        StringBuilder sb = new StringBuilder();
        while (rs.next()) sb.append(rs.getString("TABLE_NAME")).append(',');
        System.out.println("tables=" + sb);
      } catch (SQLException e) {
        System.out.println("tables-error=" + e.getSQLState() + " " + e.getMessage());
      }
      try (PreparedStatement ps = c.prepareStatement("insert into t(a, b) values (?, ?)")) {
        ps.setInt(1, 100);
        ps.setString(2, "jdbc");
        System.out.println("inserted=" + ps.executeUpdate());
      }
      System.out.println("done=ok");
    }
  }
}
