package dev.interlace.processor;

import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;

/**
 * The errors found in one annotated element, each attached to the most precise place (the annotation value that is
 * wrong), printed once when validation of the element is complete.
 */
final class Report {

    private record Entry(DiagnosticId id, String message, AnnotationValue value) {}

    private final Element element;
    private final AnnotationMirror annotation;
    private final List<Entry> entries = new ArrayList<>();

    Report(Element element, AnnotationMirror annotation) {
        this.element = element;
        this.annotation = annotation;
    }

    /** Adds an error; {@code value} may be null to point at the annotation itself. */
    void error(DiagnosticId id, AnnotationValue value, String message) {
        entries.add(new Entry(id, message, value));
    }

    boolean isClean() {
        return entries.isEmpty();
    }

    void print(Messager messager) {
        for (Entry entry : entries) {
            String text = "[" + entry.id().tag() + "] " + entry.message();
            if (entry.value() == null) {
                messager.printMessage(Diagnostic.Kind.ERROR, text, element, annotation);
            } else {
                messager.printMessage(Diagnostic.Kind.ERROR, text, element, annotation, entry.value());
            }
        }
    }
}
