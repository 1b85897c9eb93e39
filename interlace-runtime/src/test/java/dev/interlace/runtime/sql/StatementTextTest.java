package dev.interlace.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rough reading that words refusals; what may run is decided by DuckDB's parser (see the warehouse tests). */
class StatementTextTest {

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "select 1;", "  -- a comment\n SELECT 1", "SELECT ';' AS semicolon",
            "SELECT \"a;b\" FROM t", "SELECT $$;$$", "SELECT $t$;$t$", "SELECT 1 -- ; DROP", "SELECT 1 /* /* ; */ ; */",
            "SELECT E'\\';'"})
    void oneStatementIsCountedOnce(String sql) {
        assertThat(StatementText.statementCount(sql)).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1; SELECT 2", "SELECT 1 --x\r; DELETE FROM t", "SELECT E'\\''; UPDATE t SET a = 1",
            "SELECT 1 /* c */; COMMIT"})
    void severalStatementsAreCountedApart(String sql) {
        assertThat(StatementText.statementCount(sql)).isGreaterThan(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ; ", "-- only a comment", "/* only */ ;"})
    void noStatementIsZero(String sql) {
        assertThat(StatementText.statementCount(sql)).isZero();
    }

    @Test
    void theFirstKeywordSkipsCommentsAndParentheses() {
        assertThat(StatementText.firstKeyword("/* SELECT */ update t SET a = 1")).isEqualTo("UPDATE");
        assertThat(StatementText.firstKeyword("-- x\r (( select 1))")).isEqualTo("SELECT");
        assertThat(StatementText.firstKeyword("   ")).isEmpty();
    }
}
