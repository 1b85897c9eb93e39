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
        JavaFileObject source = stream("Orders",
                "name = \"Orders\",",
                "schema = {\"id string\"}");
        Compilation compilation = compile(source);
        assertThat(compilation).failed();
        assertThat(compilation).hadErrorCount(1);
        assertThat(compilation).hadErrorContaining("[InterlaceStreamName] stream name \"Orders\" is not valid")
                .inFile(source).onLineContaining("name = \"Orders\"");
    }

    @Test
    void aStreamNameWithADoubleUnderscoreIsRefused() {
        JavaFileObject source = stream("Orders",
                "name = \"orders__quarantine\",",
                "schema = {\"id string\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceStreamName]")
                .inFile(source).onLineContaining("orders__quarantine");
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
        JavaFileObject source = stream("Orders", "name = \"orders\",", "schema = {}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceEmptySchema] stream \"orders\" declares no columns")
                .inFile(source).onLineContaining("schema = {}");
    }

    @Test
    void aColumnWithoutATypeIsAnErrorOnThatColumn() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"total\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceColumnSpec] column \"total\" has no type")
                .inFile(source).onLineContaining("\"total\"");
    }

    @Test
    void anInvalidColumnNameIsAColumnSpecError() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"Total double\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceColumnSpec] column name \"Total\" is not valid")
                .inFile(source).onLineContaining("Total double");
    }

    @Test
    void somethingOtherThanNotNullAfterTheTypeIsAColumnSpecError() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string nullable\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceColumnSpec] column \"id\" has \"nullable\" after its"
                + " type").inFile(source).onLineContaining("nullable");
    }

    @Test
    void anUnknownTypeIsAnErrorListingTheValidTypes() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"total dbl\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceUnknownType] column \"total\" has unknown type"
                + " \"dbl\"; expected one of string (or text, varchar), bigint (or int, integer, long), double"
                + " (or float), decimal(p,s), boolean (or bool), timestamp, date, json")
                .inFile(source).onLineContaining("total dbl");
    }

    @Test
    void aDecimalWithoutPrecisionIsAnUnknownTypeThatSaysHowToWriteIt() {
        JavaFileObject source = stream("Orders", "name = \"orders\",", "schema = {\"total decimal\"}");
        assertThat(compile(source)).hadErrorContaining("decimal needs a precision and scale, e.g. decimal(12,2)")
                .inFile(source).onLineContaining("total decimal");
    }

    @Test
    void aColumnDeclaredTwiceIsAnErrorOnTheSecond() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"id bigint\"}");
        Compilation compilation = compile(source);
        assertThat(compilation).hadErrorCount(1);
        assertThat(compilation).hadErrorContaining("[InterlaceDuplicateColumn] column \"id\" is declared twice")
                .inFile(source).onLineContaining("id bigint");
    }

    @Test
    void aReservedColumnIsAnErrorNamingTheReservedColumns() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"_offset bigint\"}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceReservedColumn] column \"_offset\" is reserved:"
                + " every stream table adds _offset, _ingested_at, _request_id itself")
                .inFile(source).onLineContaining("_offset bigint");
    }

    @Test
    void anIdempotencyKeyThatIsNotAColumnIsAnErrorOnTheKey() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\", \"total double\"},",
                "idempotencyKey = \"order_id\"");
        assertThat(compile(source)).hadErrorContaining("[InterlaceKeyNotColumn] idempotency key \"order_id\" is not a"
                + " declared column; declared columns are id, total")
                .inFile(source).onLineContaining("idempotencyKey");
    }

    @Test
    void anIdempotencyKeyOfAnInexactTypeIsAnErrorListingTheAllowedTypes() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\", \"score double\"},",
                "idempotencyKey = \"score\"");
        assertThat(compile(source)).hadErrorContaining("[InterlaceKeyType] idempotency key \"score\" has type double")
                .inFile(source).onLineContaining("idempotencyKey");
        assertThat(compile(source)).hadErrorContaining("use a column of type string, bigint, decimal, date or"
                + " timestamp");
    }

    @Test
    void aMalformedRetentionIsAnErrorOnTheRetention() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\"},",
                "retention = \"7days\"");
        assertThat(compile(source)).hadErrorContaining("[InterlaceRetention] retention \"7days\" is not valid: write a"
                + " positive <integer><s|m|h|d|w>").inFile(source).onLineContaining("retention");
    }

    @Test
    void aZeroRetentionIsRefused() {
        JavaFileObject source = stream("Orders", "name = \"orders\",", "schema = {\"id string\"},",
                "retention = \"0d\"");
        assertThat(compile(source)).hadErrorContaining("[InterlaceRetention]").inFile(source)
                .onLineContaining("retention");
    }

    @Test
    void aDecimalOutOfRangeIsAnErrorOnThatColumn() {
        JavaFileObject source = stream("Orders",
                "name = \"orders\",",
                "schema = {\"id string\",",
                "          \"total decimal(40,2)\",",
                "          \"ratio decimal(4,5)\"}");
        Compilation compilation = compile(source);
        assertThat(compilation).hadErrorCount(2);
        assertThat(compilation).hadErrorContaining("[InterlaceDecimalRange] column \"total\" has type decimal(40,2):"
                + " precision must be 1 to 38").inFile(source).onLineContaining("decimal(40,2)");
        assertThat(compilation).hadErrorContaining("[InterlaceDecimalRange] column \"ratio\"")
                .inFile(source).onLineContaining("decimal(4,5)");
    }

    @Test
    void everyMistakeInOneAnnotationIsReportedAtOnce() {
        JavaFileObject source = stream("Orders",
                "name = \"Bad\",",
                "schema = {\"id strng\",",
                "          \"_request_id string\"},",
                "retention = \"forever\"");
        Compilation compilation = compile(source);
        assertThat(compilation).hadErrorCount(4);
        assertThat(compilation).hadErrorContaining("[InterlaceStreamName]").inFile(source).onLineContaining("Bad");
        assertThat(compilation).hadErrorContaining("[InterlaceUnknownType]").inFile(source).onLineContaining("strng");
        assertThat(compilation).hadErrorContaining("[InterlaceReservedColumn]").inFile(source)
                .onLineContaining("_request_id");
        assertThat(compilation).hadErrorContaining("[InterlaceRetention]").inFile(source).onLineContaining("forever");
    }
}
