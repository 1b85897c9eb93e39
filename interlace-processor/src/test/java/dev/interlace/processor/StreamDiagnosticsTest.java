package dev.interlace.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** Every mistake in a {@code @Stream} is a compile error with a stable id, on the annotation value that is wrong. */
class StreamDiagnosticsTest {

    private static JavaFileObject stream(String className, String... annotationLines) {
        return TestSources.annotated("test." + className, List.of("package test;",
                "import dev.interlace.annotations.SchemaDrift;",
                "import dev.interlace.annotations.Stream;",
                "@Stream("), annotationLines,
                ") public final class " + className + " {}");
    }

    /**
     * Compiles {@code @Stream(annotationLines)} on {@code test.Orders} and requires an error containing
     * {@code message} on the line containing {@code line}; returns the compilation for further checks.
     */
    private static Compilation errorOn(String line, String message, String... annotationLines) {
        JavaFileObject source = stream("Orders", annotationLines);
        Compilation compilation = compile(source);
        assertThat(compilation).hadErrorContaining(message).inFile(source).onLineContaining(line);
        return compilation;
    }

    /**
     * Compiles {@code @Stream(annotationLines)} on {@code test.Orders} and requires one error per message and line of
     * {@code messagesAndLines}, each containing its message, on the line containing its line.
     */
    private static void errorsOn(String[] annotationLines, String... messagesAndLines) {
        JavaFileObject source = stream("Orders", annotationLines);
        Compilation compilation = compile(source);
        assertThat(compilation).hadErrorCount(messagesAndLines.length / 2);
        for (int i = 0; i < messagesAndLines.length; i += 2) {
            assertThat(compilation).hadErrorContaining(messagesAndLines[i]).inFile(source)
                    .onLineContaining(messagesAndLines[i + 1]);
        }
    }

    private static Compilation compile(JavaFileObject... sources) {
        return javac().withProcessors(new InterlaceProcessor()).compile(sources);
    }

    @Test
    void aValidStreamCompilesWithoutWarnings() {
        Compilation compilation = compile(stream("Orders",
                "name = \"orders\",",
                "schema = {\"order_id string not null\", \"total decimal(12,2)\"},",
                "idempotencyKey = \"order_id\", retention = \"7d\""));
        assertThat(compilation).succeededWithoutWarnings();
        assertThat(compilation).generatedSourceFile("test.OrdersEvent");
        assertThat(compilation).generatedSourceFile("test.OrdersDecoder");
        assertThat(compilation).generatedSourceFile("test.OrdersStream");
        assertThat(compilation).generatedSourceFile("test.InterlaceStreamRegistry");
    }

    @Test
    void anInvalidStreamNameIsAnErrorOnTheName() {
        Compilation compilation = errorOn("name = \"Orders\"",
                "[InterlaceStreamName] stream name \"Orders\" is not valid",
                "name = \"Orders\",",
                "schema = {\"id string\"}");
        assertThat(compilation).failed();
        assertThat(compilation).hadErrorCount(1);
    }

    @Test
    void aStreamNameWithADoubleUnderscoreIsRefused() {
        errorOn("orders__quarantine", "[InterlaceStreamName]",
                "name = \"orders__quarantine\",",
                "schema = {\"id string\"}");
    }

    @Test
    void aSecondStreamWithTheSameNameIsAnErrorNamingTheFirst() {
        JavaFileObject first = stream("Orders", "name = \"orders\",", "schema = {\"id string\"}");
        JavaFileObject second = stream("MoreOrders", "name = \"orders\",", "schema = {\"id string\"}");
        Compilation compilation = compile(first, second);
        assertThat(compilation).hadErrorCount(1);
        assertThat(compilation).hadErrorContaining("[InterlaceDuplicateStream] stream \"orders\" is already declared"
                + " by test.Orders").inFile(second).onLineContaining("name = \"orders\"");
    }

    @Test
    void anEmptySchemaIsAnErrorOnTheSchema() {
        errorOn("schema = {}", "[InterlaceEmptySchema] stream \"orders\" declares no columns",
                "name = \"orders\",", "schema = {}");
    }

    @Test
    void aColumnWithoutATypeIsAnErrorOnThatColumn() {
        errorOn("\"total\"", "[InterlaceColumnSpec] column \"total\" has no type",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"total\"}");
    }

    @Test
    void anInvalidColumnNameIsAColumnSpecError() {
        errorOn("Total double", "[InterlaceColumnSpec] column name \"Total\" is not valid",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"Total double\"}");
    }

    @Test
    void somethingOtherThanNotNullAfterTheTypeIsAColumnSpecError() {
        errorOn("nullable", "[InterlaceColumnSpec] column \"id\" has \"nullable\" after its type",
                "name = \"orders\",",
                "schema = {\"id string nullable\"}");
    }

    @Test
    void anUnknownTypeIsAnErrorListingTheValidTypes() {
        errorOn("total dbl", "[InterlaceUnknownType] column \"total\" has unknown type"
                + " \"dbl\"; expected one of string (or text, varchar), bigint (or int, integer, long), double"
                + " (or float), decimal(p,s), boolean (or bool), timestamp, date, json",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"total dbl\"}");
    }

    @Test
    void aDecimalWithoutPrecisionIsAnUnknownTypeThatSaysHowToWriteIt() {
        errorOn("total decimal", "decimal needs a precision and scale, e.g. decimal(12,2)",
                "name = \"orders\",", "schema = {\"total decimal\"}");
    }

    @Test
    void aColumnDeclaredTwiceIsAnErrorOnTheSecond() {
        Compilation compilation = errorOn("id bigint", "[InterlaceDuplicateColumn] column \"id\" is declared twice",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"id bigint\"}");
        assertThat(compilation).hadErrorCount(1);
    }

    @Test
    void aReservedColumnIsAnErrorNamingTheReservedColumns() {
        errorOn("_offset bigint", "[InterlaceReservedColumn] column \"_offset\" is reserved:"
                + " every stream table adds _offset, _ingested_at, _request_id itself",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"_offset bigint\"}");
    }

    @Test
    void anIdempotencyKeyThatIsNotAColumnIsAnErrorOnTheKey() {
        errorOn("idempotencyKey", "[InterlaceKeyNotColumn] idempotency key \"order_id\" is not a"
                + " declared column; declared columns are id, total",
                "name = \"orders\",",
                "schema = {\"id string\", \"total double\"},",
                "idempotencyKey = \"order_id\"");
    }

    @Test
    void anIdempotencyKeyOfAnInexactTypeIsAnErrorListingTheAllowedTypes() {
        Compilation compilation = errorOn("idempotencyKey",
                "[InterlaceKeyType] idempotency key \"score\" has type double",
                "name = \"orders\",",
                "schema = {\"id string\", \"score double\"},",
                "idempotencyKey = \"score\"");
        assertThat(compilation).hadErrorContaining("use a column of type string, bigint, decimal, date or"
                + " timestamp");
    }

    @Test
    void aMalformedRetentionIsAnErrorOnTheRetention() {
        errorOn("retention", "[InterlaceRetention] retention \"7days\" is not valid: write a"
                + " positive <integer><s|m|h|d|w>",
                "name = \"orders\",",
                "schema = {\"id string\"},",
                "retention = \"7days\"");
    }

    @Test
    void aZeroRetentionIsRefused() {
        errorOn("retention", "[InterlaceRetention]",
                "name = \"orders\",", "schema = {\"id string\"},",
                "retention = \"0d\"");
    }

    @Test
    void aDecimalOutOfRangeIsAnErrorOnThatColumn() {
        errorsOn(new String[] {"name = \"orders\",",
                    "schema = {\"id string\",",
                    "          \"total decimal(40,2)\",",
                    "          \"ratio decimal(4,5)\"}"},
                "[InterlaceDecimalRange] column \"total\" has type decimal(40,2): precision must be 1 to 38",
                "decimal(40,2)",
                "[InterlaceDecimalRange] column \"ratio\"", "decimal(4,5)");
    }

    @Test
    void everyMistakeInOneAnnotationIsReportedAtOnce() {
        errorsOn(new String[] {"name = \"Bad\",",
                    "schema = {\"id strng\",",
                    "          \"_request_id string\"},",
                    "retention = \"forever\""},
                "[InterlaceStreamName]", "Bad",
                "[InterlaceUnknownType]", "strng",
                "[InterlaceReservedColumn]", "_request_id",
                "[InterlaceRetention]", "forever");
    }
}
