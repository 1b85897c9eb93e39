package dev.interlace.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.util.List;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.junit.jupiter.api.Test;

/** {@code @Model} mistakes are compile errors with stable ids; valid models get a registry. */
class ModelDiagnosticsTest {

    private static final JavaFileObject ORDERS = JavaFileObjects.forSourceLines("shop.Orders",
            "package shop;",
            "import dev.interlace.annotations.Stream;",
            "@Stream(name = \"orders\", schema = {\"order_id string not null\", \"total double\"})",
            "public final class Orders {}");

    private static JavaFileObject javaModel(String className, String... annotationLines) {
        return TestSources.annotated("shop." + className, List.of("package shop;",
                "import dev.interlace.annotations.Materialise;",
                "import dev.interlace.annotations.Model;",
                "import dev.interlace.runtime.model.JavaModel;",
                "import dev.interlace.runtime.model.ModelContext;",
                "@Model("), annotationLines,
                ") public final class " + className + " implements JavaModel {",
                "  public long run(ModelContext context) { return 0; } }");
    }

    private static Compilation compile(JavaFileObject... sources) {
        return javac().withProcessors(new InterlaceProcessor()).compile(sources);
    }

    @Test
    void aValidJavaModelGetsARegistryEntry() {
        Compilation compilation = compile(ORDERS, javaModel("Scores",
                "name = \"scores\", dependsOn = \"streams.orders\", materialise = Materialise.INCREMENTAL,",
                "uniqueKey = \"order_id\""));
        assertThat(compilation).succeededWithoutWarnings();
        assertThat(compilation).generatedSourceFile("shop.InterlaceModelRegistry").contentsAsUtf8String()
                .contains("ModelDefinition.java(\"scores\", Materialise.INCREMENTAL, \"order_id\","
                        + " List.of(\"streams.orders\"), new shop.Scores(), \"shop.Scores\")");
        assertThat(compilation).generatedFile(StandardLocation.CLASS_OUTPUT,
                "META-INF/services/dev.interlace.runtime.model.ModelRegistry").contentsAsUtf8String()
                .isEqualTo("shop.InterlaceModelRegistry\n");
    }

    @Test
    void anUnknownDependencyIsAnErrorOnThatEntry() {
        JavaFileObject source = javaModel("Scores",
                "name = \"scores\",",
                "dependsOn = {\"streams.orders\",",
                "             \"streams.payments\"}");
        Compilation compilation = compile(ORDERS, source);
        assertThat(compilation).hadErrorContaining("[InterlaceModelDependsOn] model \"scores\" depends on"
                + " \"streams.payments\", which is neither a stream of this compilation (streams.<name>; declared:"
                + " orders)").inFile(source).onLineContaining("streams.payments");
    }

    @Test
    void aJavaModelMustSayWhatItReadsAndCannotBeAView() {
        JavaFileObject source = javaModel("Scores", "name = \"scores\", materialise = Materialise.VIEW");
        Compilation compilation = compile(ORDERS, source);
        assertThat(compilation).hadErrorContaining("[InterlaceModelDependsOn] Java model \"scores\" must say what it"
                + " reads");
        assertThat(compilation).hadErrorContaining("[InterlaceModelKind] a Java model cannot be a view");
    }

    @Test
    void aModelWithoutSqlThatIsNotAJavaModelIsAnError() {
        JavaFileObject source = JavaFileObjects.forSourceLines("shop.Nothing",
                "package shop;",
                "import dev.interlace.annotations.Model;",
                "@Model(name = \"nothing\")",
                "public final class Nothing {}");
        assertThat(compile(source)).hadErrorContaining("[InterlaceModelKind] model \"nothing\" has no SQL and"
                + " Nothing does not implement dev.interlace.runtime.model.JavaModel");
    }

    @Test
    void badNamesDuplicatesAndMisplacedKeysAreErrors() {
        JavaFileObject first = javaModel("First", "name = \"Scores\", dependsOn = \"streams.orders\"");
        JavaFileObject second = JavaFileObjects.forSourceLines("shop.Second",
                "package shop;",
                "import dev.interlace.annotations.Model;",
                "@Model(name = \"totals\", sql = \"SELECT * FROM streams.orders\", uniqueKey = \"order_id\")",
                "public final class Second {}");
        JavaFileObject third = JavaFileObjects.forSourceLines("shop.Third",
                "package shop;",
                "import dev.interlace.annotations.Model;",
                "@Model(name = \"totals\", sql = \"SELECT 1\")",
                "public final class Third {}");
        Compilation compilation = compile(ORDERS, first, second, third);
        assertThat(compilation).hadErrorContaining("[InterlaceModelName] model name \"Scores\" is not valid")
                .inFile(first);
        assertThat(compilation).hadErrorContaining("[InterlaceModelKey] uniqueKey only applies to incremental"
                + " models").inFile(second);
        assertThat(compilation).hadErrorContaining("[InterlaceDuplicateModel] model \"totals\" is already declared"
                + " by shop.Second").inFile(third);
    }
}
