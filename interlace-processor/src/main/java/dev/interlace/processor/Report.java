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
 *
 * <p>An error is <em>unresolved</em> when it names something a later round may still generate; a step defers an
 * element whose report has one and prints the report only if it is still there in the last round.
 */
final class Report {

    private record Entry(DiagnosticId id, String message, AnnotationValue value) {}

    private final Element element;
    private final AnnotationMirror annotation;
    private final List<Entry> entries = new ArrayList<>();
    private boolean unresolved;

    Report(Element element, AnnotationMirror annotation) {
        this.element = element;
        this.annotation = annotation;
    }

    /** Adds an error; {@code value} may be null to point at the annotation itself. */
    void error(DiagnosticId id, AnnotationValue value, String message) {
        entries.add(new Entry(id, message, value));
    }

    /** Adds an error about something that does not exist yet but may be generated in a later round. */
    void unresolved(DiagnosticId id, AnnotationValue value, String message) {
        error(id, value, message);
        unresolved = true;
    }

    boolean isClean() {
        return entries.isEmpty();
    }

    /** Whether a later round might clear this report. */
    boolean hasUnresolved() {
        return unresolved;
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
