package dev.interlace.processor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;

/** Reads the annotations the steps handle, by name, so the processor does not need their classes loaded. */
final class Annotations {

    private Annotations() {}

    /** The mirror of {@code annotation} on {@code element}, which the round said is annotated with it. */
    static AnnotationMirror mirror(Element element, String annotation) {
        for (AnnotationMirror mirror : element.getAnnotationMirrors()) {
            TypeElement type = (TypeElement) mirror.getAnnotationType().asElement();
            if (type.getQualifiedName().contentEquals(annotation)) {
                return mirror;
            }
        }
        throw new IllegalStateException("unreachable: " + element + " was returned as annotated with " + annotation);
    }

    /**
     * Every value of {@code mirror} by member name, defaults included; explicit values win because they are the
     * ones javac can point a diagnostic at.
     */
    static Map<String, AnnotationValue> values(Elements elements, AnnotationMirror mirror) {
        Map<String, AnnotationValue> values = new HashMap<>();
        elements.getElementValuesWithDefaults(mirror)
                .forEach((member, value) -> values.put(member.getSimpleName().toString(), value));
        mirror.getElementValues().forEach((member, value) -> values.put(member.getSimpleName().toString(), value));
        return values;
    }

    static String string(AnnotationValue value) {
        return (String) value.getValue();
    }

    /** The constant name of an enum value, e.g. {@code INCREMENTAL}. */
    static String enumConstant(AnnotationValue value) {
        return ((VariableElement) value.getValue()).getSimpleName().toString();
    }

    /** The elements of an array value; a single value written without braces is a one-element list. */
    @SuppressWarnings("unchecked")
    static List<? extends AnnotationValue> list(AnnotationValue value) {
        return (List<? extends AnnotationValue>) value.getValue();
    }

    /** The package of {@code type}, {@code ""} for the unnamed package. */
    static String packageOf(Elements elements, TypeElement type) {
        PackageElement pkg = elements.getPackageOf(type);
        return pkg.isUnnamed() ? "" : pkg.getQualifiedName().toString();
    }
}
