package dev.interlace.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReadOnlySqlTest {

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "select 1;", "  -- a comment\n SELECT 1", "/* c */ WITH x AS (SELECT 1) SELECT *"
            + " FROM x", "VALUES (1), (2)", "DESCRIBE streams.orders", "SHOW TABLES", "EXPLAIN SELECT 1",
            "(SELECT 1)", "SELECT ';' AS semicolon", "SELECT \"a;b\" FROM t", "SELECT $$;$$", "SELECT 1 -- ; DROP"})
    void readOnlySingleStatementsPass(String sql) {
        assertThat(ReadOnlySql.check(sql)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"DELETE FROM streams.orders", "insert into t values (1)", "DROP TABLE t", "ATTACH 'x.db'",
            "COPY t TO 'out.csv'", "SET threads = 1", "PRAGMA version", "CREATE TABLE t (a INT)", "CALL foo()",
            "/* SELECT */ UPDATE t SET a = 1"})
    void writesAreForbidden(String sql) {
        assertThat(ReadOnlySql.check(sql)).hasValueSatisfying(problem -> assertThat(problem.forbidden()).isTrue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ; ", "-- only a comment", "SELECT 1; SELECT 2", "SELECT 1; DELETE FROM t"})
    void anythingButExactlyOneStatementIsRefused(String sql) {
        assertThat(ReadOnlySql.check(sql)).hasValueSatisfying(problem -> assertThat(problem.forbidden()).isFalse());
    }
}
