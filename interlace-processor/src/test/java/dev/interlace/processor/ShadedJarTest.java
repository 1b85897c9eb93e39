package dev.interlace.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor jar carries its own javaparser, relocated, so a user project whose class path and processor path
 * hold another javaparser version compiles as if ours were not there. Runs in the package phase, against the jar
 * the shade plugin just wrote; a user project is compiled by javac as a build tool would run it.
 */
class ShadedJarTest {

    private static Path processorJar;
    private static Path userJavaparser;

    @BeforeAll
    static void findTheJars() {
        String jar = System.getProperty("interlace.processorJar");
        assumeTrue(jar != null, "runs in the package phase (surefire execution shaded-jar), against the shaded jar");
        processorJar = Path.of(jar);
        userJavaparser = Path.of(System.getProperty("interlace.userJavaparser"));
    }

    @Test
    void theJarHoldsJavaparserOnlyUnderTheProcessorsOwnPackage() throws IOException {
        try (JarFile jar = new JarFile(processorJar.toFile())) {
            List<String> names = jar.stream().map(entry -> entry.getName()).toList();
            assertThat(names).noneMatch(name -> name.startsWith("com/github/javaparser/"));
            assertThat(names).anyMatch(name -> name.startsWith("dev/interlace/processor/shaded/javaparser/"));
            assertThat(names).contains("META-INF/services/javax.annotation.processing.Processor");
        }
    }

    @Test
    void theJarNamesItsModuleAndTellsGradleItIsAnAggregatingProcessor() throws IOException {
        try (JarFile jar = new JarFile(processorJar.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                    .isEqualTo("dev.interlace.processor");
            // One registry per compilation lists every stream and model: the output depends on many inputs.
            String gradle = new String(jar.getInputStream(jar.getEntry(
                    "META-INF/gradle/incremental.annotation.processors")).readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
            assertThat(gradle.strip()).isEqualTo(InterlaceProcessor.class.getName() + ",aggregating");
        }
    }

    @Test
    void aUserProjectWithAnotherJavaparserVersionCompilesAndGetsItsSources(@TempDir Path project) throws Exception {
        String log = compileUserProject(project, processorJar);
        assertThat(log).doesNotContain("error:");
        assertThat(project.resolve("generated/shop/OrdersEvent.java")).exists();
        assertThat(project.resolve("generated/shop/InterlaceStreamRegistry.java")).exists();
        assertThat(project.resolve("generated/shop/InterlaceModelRegistry.java")).exists();
        assertThat(project.resolve("classes/shop/ParsesJava.class")).exists();
        assertThat(project.resolve("classes/META-INF/services/dev.interlace.runtime.stream.StreamRegistry")).exists();
    }

    /**
     * Compiles, with the user's javaparser first on both paths: a stream, a Java model depending on it and a class
     * of the user's own that calls javaparser {@code 3.25}'s API. Returns what javac printed.
     */
    private static String compileUserProject(Path project, Path processor) throws IOException, URISyntaxException {
        Path sources = project.resolve("src/shop");
        Files.createDirectories(sources);
        Files.writeString(sources.resolve("Orders.java"), String.join("\n",
                "package shop;",
                "import dev.interlace.annotations.Stream;",
                "@Stream(name = \"orders\", schema = {\"order_id string not null\", \"total double\"})",
                "public final class Orders {}"));
        Files.writeString(sources.resolve("Scores.java"), String.join("\n",
                "package shop;",
                "import dev.interlace.annotations.Model;",
                "import dev.interlace.runtime.model.JavaModel;",
                "import dev.interlace.runtime.model.ModelContext;",
                "@Model(name = \"scores\", dependsOn = \"streams.orders\")",
                "public final class Scores implements JavaModel {",
                "  public long run(ModelContext context) { return 0; } }"));
        Files.writeString(sources.resolve("ParsesJava.java"), String.join("\n",
                "package shop;",
                "import com.github.javaparser.StaticJavaParser;",
                "final class ParsesJava {",
                "  static String firstType(String code) {",
                "    return StaticJavaParser.parse(code).getType(0).getNameAsString(); } }"));
        Files.createDirectories(project.resolve("generated"));
        Files.createDirectories(project.resolve("classes"));

        List<String> classPath = new ArrayList<>();
        classPath.add(userJavaparser.toString());
        classPath.add(locationOf("dev.interlace.annotations.Stream"));
        classPath.add(locationOf("dev.interlace.runtime.model.JavaModel"));
        classPath.add(locationOf("com.fasterxml.jackson.core.JsonParser"));
        List<String> arguments = new ArrayList<>(List.of(
                "-classpath", String.join(File.pathSeparator, classPath),
                "-processorpath", userJavaparser + File.pathSeparator + processor,
                "-s", project.resolve("generated").toString(),
                "-d", project.resolve("classes").toString()));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter log = new StringWriter();
        boolean succeeded;
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, null);
                var files = Files.list(sources)) {
            var units = fileManager.getJavaFileObjectsFromPaths(files.sorted().toList());
            succeeded = javac.getTask(log, fileManager, null, arguments, null, units).call();
        }
        assertThat(succeeded).as("javac failed:%n%s", log).isTrue();
        return log.toString();
    }

    private static String locationOf(String className) throws URISyntaxException {
        try {
            Class<?> type = Class.forName(className, false, ShadedJarTest.class.getClassLoader());
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(className + " is a test dependency of this module", e);
        }
    }
}
