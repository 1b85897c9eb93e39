package dev.interlace.processor;

import com.google.testing.compile.JavaFileObjects;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;

/** Sources for the compile-testing cases: an annotated class whose annotation values a case gives line by line. */
final class TestSources {

    private TestSources() {}

    /**
     * The source of {@code qualifiedName}: {@code head} (package, imports, the annotation's opening), then
     * {@code annotationLines}, then {@code tail} (the annotation's closing and the class).
     */
    static JavaFileObject annotated(String qualifiedName, List<String> head, String[] annotationLines,
            String... tail) {
        List<String> lines = new ArrayList<>(head);
        lines.addAll(List.of(annotationLines));
        lines.addAll(List.of(tail));
        return JavaFileObjects.forSourceLines(qualifiedName, lines);
    }
}
