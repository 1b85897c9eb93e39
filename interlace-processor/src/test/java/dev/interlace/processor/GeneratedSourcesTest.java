package dev.interlace.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.junit.jupiter.api.Test;

/**
 * The generated sources are what a user opens in the IDE: they are compared whole against the reviewed copies in
 * {@code src/test/resources/golden}, so any change to them is deliberate.
 */
class GeneratedSourcesTest {

    /** Every column type, a Java keyword, names that clash with record methods and with decoder locals. */
    private static final JavaFileObject EVERYTHING = JavaFileObjects.forSourceLines("shop.Everything",
            "package shop;",
            "import dev.interlace.annotations.SchemaDrift;",
            "import dev.interlace.annotations.Stream;",
            "@Stream(name = \"everything\",",
            "        schema = {\"id STRING not null\", \"note text\", \"title varchar\",",
            "                  \"quantity bigint not null\", \"small int\", \"medium integer\", \"large long\",",
            "                  \"ratio double not null\", \"score float\",",
            "                  \"price decimal(12,2) not null\", \"exact Decimal( 38 , 10 )\",",
            "                  \"paid boolean not null\", \"gift bool\",",
            "                  \"at timestamp not null\", \"day date\", \"payload json\",",
            "                  \"class string\", \"hash_code bigint\", \"errors string\", \"seen boolean\"},",
            "        idempotencyKey = \"id\",",
            "        retention = \"36h\",",
            "        onSchemaDrift = SchemaDrift.QUARANTINE)",
            "public final class Everything {}");

    private static final JavaFileObject EVOLVING = JavaFileObjects.forSourceLines("shop.Evolving",
            "package shop;",
            "import dev.interlace.annotations.SchemaDrift;",
            "import dev.interlace.annotations.Stream;",
            "@Stream(name = \"evolving\", schema = \"device_id string not null\", onSchemaDrift = SchemaDrift.EVOLVE)",
            "public final class Evolving {}");

    @Test
    void aStreamUsingEveryTypeGeneratesTheReviewedSources() {
        Compilation compilation = javac().withProcessors(new InterlaceProcessor()).compile(EVERYTHING, EVOLVING);
        assertThat(compilation).succeededWithoutWarnings();
        for (String type : new String[] {"EverythingEvent", "EverythingDecoder", "EverythingStream",
                "EvolvingDecoder", "EvolvingStream", "InterlaceStreamRegistry"}) {
            assertThat(compilation).generatedSourceFile("shop." + type).contentsAsUtf8String()
                    .isEqualTo(golden(type + ".java"));
        }
        assertThat(compilation)
                .generatedFile(StandardLocation.CLASS_OUTPUT, "META-INF/services/dev.interlace.runtime.stream.StreamRegistry")
                .contentsAsUtf8String().isEqualTo("shop.InterlaceStreamRegistry\n");
    }

    @Test
    void generationIsDeterministic() {
        Compilation first = javac().withProcessors(new InterlaceProcessor()).compile(EVERYTHING, EVOLVING);
        Compilation second = javac().withProcessors(new InterlaceProcessor()).compile(EVOLVING, EVERYTHING);
        assertThat(second).generatedSourceFile("shop.InterlaceStreamRegistry").contentsAsUtf8String()
                .isEqualTo(contents(first, "shop.InterlaceStreamRegistry"));
        assertThat(second).generatedSourceFile("shop.EverythingDecoder").contentsAsUtf8String()
                .isEqualTo(contents(first, "shop.EverythingDecoder"));
    }

    private static String contents(Compilation compilation, String type) {
        JavaFileObject file = compilation.generatedSourceFile(type).orElseThrow();
        try {
            return file.getCharContent(true).toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String golden(String name) {
        try (InputStream in = GeneratedSourcesTest.class.getResourceAsStream("/golden/" + name)) {
            if (in == null) {
                throw new AssertionError("missing golden file src/test/resources/golden/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
