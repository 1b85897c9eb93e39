package dev.interlace.integration.http;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A new version of a {@code @Stream} class, built the way a developer's build does it: its source is compiled by
 * javac with the real annotation processor, and the generated descriptor is loaded from the output. Two versions of
 * one stream cannot live in one compilation (the processor refuses a duplicate name), so a test that changes a
 * stream's schema across a restart compiles the second version itself.
 */
public final class RebuiltStream {

    private RebuiltStream() {}

    /**
     * Compiles {@code source} (one public class {@code packageName.className} annotated with {@code @Stream}) into
     * {@code workDirectory} and returns the descriptor the processor generated for it.
     */
    public static StreamDescriptor compile(Path workDirectory, String packageName, String className, String source) {
        try {
            Path sources = Files.createDirectories(workDirectory.resolve("src").resolve(packageName.replace('.', '/')));
            Path classes = Files.createDirectories(workDirectory.resolve("classes"));
            Path file = sources.resolve(className + ".java");
            Files.writeString(file, source, StandardCharsets.UTF_8);
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            StringWriter diagnostics = new StringWriter();
            boolean compiled = javac.getTask(diagnostics, null, null, List.of("-classpath",
                    System.getProperty("java.class.path"), "-d", classes.toString(), "-processor",
                    "dev.interlace.processor.InterlaceProcessor", "--release", "17"), null,
                    javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(file.toFile()))
                    .call();
            if (!compiled) {
                throw new IllegalStateException("the new version of the stream does not compile:\n" + diagnostics);
            }
            // Not closed: the server uses the loaded classes until the test ends.
            URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                    RebuiltStream.class.getClassLoader());
            return (StreamDescriptor) loader.loadClass(packageName + "." + className + "Stream")
                    .getField("DESCRIPTOR").get(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the processor generated no descriptor for " + className, e);
        }
    }
}
