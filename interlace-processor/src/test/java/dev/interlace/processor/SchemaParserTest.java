package dev.interlace.processor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SchemaParserTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "order_id string not null | order_id string not null",
            "note TEXT                | note string",
            "name varchar             | name string",
            "n int NOT NULL           | n bigint not null",
            "n integer                | n bigint",
            "n long                   | n bigint",
            "n BIGINT                 | n bigint",
            "x float                  | x double",
            "x double  not   null     | x double not null",
            "total decimal(12,2)      | total decimal(12,2)",
            "total DECIMAL( 38 , 0 )  | total decimal(38,0)",
            "f bool                   | f boolean",
            "at timestamp             | at timestamp",
            "day date                 | day date",
            "meta json                | meta json"})
    void aliasesAndCaseNormaliseToTheCanonicalDeclaration(String declared, String canonical) {
        SchemaParser.Result result = SchemaParser.parse(declared);
        assertThat(result.failure()).isEmpty();
        assertThat(result.column().orElseThrow().declaration()).isEqualTo(canonical);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "total                 | COLUMN_SPEC",
            "''                    | COLUMN_SPEC",
            "Total double          | COLUMN_SPEC",
            "1st string            | COLUMN_SPEC",
            "a string null         | COLUMN_SPEC",
            "a string not null x   | COLUMN_SPEC",
            "a uuid                | UNKNOWN_TYPE",
            "a decimal             | UNKNOWN_TYPE",
            "a decimal(12)         | UNKNOWN_TYPE",
            "a decimal(0,0)        | DECIMAL_RANGE",
            "a decimal(39,2)       | DECIMAL_RANGE",
            "a decimal(5,6)        | DECIMAL_RANGE",
            "_offset bigint        | RESERVED_COLUMN",
            "_ingested_at timestamp| RESERVED_COLUMN",
            "_request_id string    | RESERVED_COLUMN"})
    void mistakesAreReportedWithTheirDiagnostic(String declared, DiagnosticId expected) {
        SchemaParser.Result result = SchemaParser.parse(declared);
        assertThat(result.column()).isEmpty();
        assertThat(result.failure().orElseThrow().id()).isEqualTo(expected);
    }

    @Test
    void aColumnNameMayBeSixtyThreeCharactersButNotSixtyFour() {
        String longest = "a".repeat(63);
        assertThat(SchemaParser.parse(longest + " string").column()).isPresent();
        assertThat(SchemaParser.parse(longest + "a string").failure().orElseThrow().id())
                .isEqualTo(DiagnosticId.COLUMN_SPEC);
    }
}
