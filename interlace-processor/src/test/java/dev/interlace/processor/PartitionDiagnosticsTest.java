package dev.interlace.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.common.truth.StringSubject;
import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** {@code @Stream(partitions, partitionKey)}: the values the runtime cannot serve are compile errors. */
class PartitionDiagnosticsTest {

    private static JavaFileObject stream(String... annotationLines) {
        return TestSources.annotated("test.Payments", List.of("package test;",
                "import dev.interlace.annotations.Stream;",
                "@Stream(name = \"payments\", schema = {\"payment_id string not null\", \"amount bigint\","
                        + " \"meta json\"},"), annotationLines,
                ") public final class Payments {}");
    }

    private static Compilation compile(JavaFileObject source) {
        return javac().withProcessors(new InterlaceProcessor()).compile(source);
    }

    /** The descriptor holder generated for a stream with {@code annotationLines}, which compiles without warnings. */
    private static StringSubject generatedDescriptor(String... annotationLines) {
        Compilation compilation = compile(stream(annotationLines));
        assertThat(compilation).succeededWithoutWarnings();
        return assertThat(compilation).generatedSourceFile("test.PaymentsStream").contentsAsUtf8String();
    }

    @Test
    void aPartitionedStreamCompilesAndItsDescriptorSaysSo() {
        generatedDescriptor("idempotencyKey = \"payment_id\", partitions = 8").contains("stream.partitions(8);");
        generatedDescriptor("partitions = 3, partitionKey = \"payment_id\"")
                .contains("stream.partitionKey(\"payment_id\");");
    }

    @Test
    void oneIsTheDefaultAndGeneratesWhatItAlwaysDid() {
        generatedDescriptor("idempotencyKey = \"payment_id\"").doesNotContain("partition");
    }

    @Test
    void aCountOutsideOneTo256IsAnErrorOnTheCount() {
        for (String count : new String[] {"0", "-1", "257"}) {
            JavaFileObject source = stream("partitions = " + count);
            assertThat(compile(source)).hadErrorContaining("[InterlacePartitions] partitions = " + count
                    + " is not valid: a stream has 1 to 256 partitions").inFile(source)
                    .onLineContaining("partitions = " + count);
        }
        assertThat(compile(stream("partitions = 256"))).succeeded();
    }

    @Test
    void aPartitionKeyMustBeAColumnThatCanBeHashedExactlyAndOnlyWithoutIdempotencyKey() {
        JavaFileObject unknown = stream("partitions = 2, partitionKey = \"nope\"");
        assertThat(compile(unknown)).hadErrorContaining("[InterlacePartitions] partitionKey \"nope\" is not a"
                + " declared column").inFile(unknown).onLineContaining("partitionKey");
        JavaFileObject json = stream("partitions = 2, partitionKey = \"meta\"");
        assertThat(compile(json)).hadErrorContaining("partitionKey \"meta\" has type json");
        JavaFileObject keyed = stream("idempotencyKey = \"payment_id\", partitions = 2,"
                + " partitionKey = \"amount\"");
        assertThat(compile(keyed)).hadErrorContaining("is not allowed with an idempotency key");
    }

    @Test
    void underscorePartitionCannotBeDeclared() {
        JavaFileObject source = JavaFileObjects.forSourceLines("test.Odd", "package test;",
                "import dev.interlace.annotations.Stream;",
                "@Stream(name = \"odd\", schema = {\"_partition bigint\"}) public final class Odd {}");
        assertThat(compile(source)).hadErrorContaining("column name \"_partition\" is not valid");
    }
}
