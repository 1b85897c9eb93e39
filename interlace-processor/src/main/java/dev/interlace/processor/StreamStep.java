package dev.interlace.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

/**
 * Validates every {@code @Stream} into a {@link Report} and, for valid ones, generates the event record, decoder
 * and descriptor; when processing is over, writes the compilation's registry and its service file.
 */
final class StreamStep implements ProcessingStep {

    static final String ANNOTATION = "dev.interlace.annotations.Stream";
    static final String REGISTRY_INTERFACE = "dev.interlace.runtime.stream.StreamRegistry";

    private static final Pattern STREAM_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    private final ProcessingEnvironment env;
    /** Streams of this compilation by name, valid or not, to report duplicates against the first. */
    private final Map<String, String> declaredNames = new HashMap<>();
    private final Registries<StreamDeclaration> registry;

    StreamStep(ProcessingEnvironment env) {
        this.env = env;
        this.registry = new Registries<>(env, REGISTRY_INTERFACE, StreamSources.REGISTRY_NAME,
                StreamDeclaration::packageName, StreamSources::registry);
    }

    @Override
    public String annotation() {
        return ANNOTATION;
    }

    /** The names of the streams declared so far in this compilation. */
    Set<String> declaredStreams() {
        return declaredNames.keySet();
    }

    @Override
    public void process(Set<? extends Element> elements) {
        for (Element element : elements) {
            if (!(element instanceof TypeElement type)) {
                continue;
            }
            AnnotationMirror mirror = findAnnotation(type);
            Report report = new Report(type, mirror);
            Optional<StreamDeclaration> declaration = validate(type, mirror, report);
            report.print(env.getMessager());
            if (declaration.isPresent() && report.isClean()) {
                generate(type, declaration.get());
            }
        }
        registry.endOfRound(!elements.isEmpty());
    }

    @Override
    public void finish() {
        registry.finish();
    }

    private Optional<StreamDeclaration> validate(TypeElement type, AnnotationMirror mirror, Report report) {
        Map<String, AnnotationValue> values = valuesWithDefaults(mirror);

        AnnotationValue nameValue = values.get("name");
        String name = (String) nameValue.getValue();
        if (!STREAM_NAME.matcher(name).matches() || name.contains("__")) {
            report.error(DiagnosticId.STREAM_NAME, nameValue, "stream name \"" + name + "\" is not valid: use"
                    + " lower-case letters, digits and single underscores, starting with a letter, at most 63"
                    + " characters ([a-z][a-z0-9_]{0,62}, no \"__\"), e.g. \"orders\"");
        } else {
            String first = declaredNames.putIfAbsent(name, type.getQualifiedName().toString());
            if (first != null) {
                report.error(DiagnosticId.DUPLICATE_STREAM, nameValue, "stream \"" + name + "\" is already"
                        + " declared by " + first + "; stream names must be unique, so rename one of them");
            }
        }

        AnnotationValue schemaValue = values.get("schema");
        @SuppressWarnings("unchecked")
        List<? extends AnnotationValue> schema = (List<? extends AnnotationValue>) schemaValue.getValue();
        if (schema.isEmpty()) {
            report.error(DiagnosticId.EMPTY_SCHEMA, schemaValue, "stream \"" + name + "\" declares no columns;"
                    + " add at least one, e.g. schema = {\"id string not null\"}");
        }
        List<ColumnSpec> columns = new ArrayList<>();
        Map<String, ColumnSpec> byName = new HashMap<>();
        for (AnnotationValue element : schema) {
            SchemaParser.Result parsed = SchemaParser.parse((String) element.getValue());
            if (parsed.failure().isPresent()) {
                report.error(parsed.failure().get().id(), element, parsed.failure().get().message());
                continue;
            }
            ColumnSpec column = parsed.column().orElseThrow();
            if (byName.putIfAbsent(column.name(), column) != null) {
                report.error(DiagnosticId.DUPLICATE_COLUMN, element, "column \"" + column.name()
                        + "\" is declared twice; remove or rename one of them");
                continue;
            }
            columns.add(column);
        }

        AnnotationValue keyValue = values.get("idempotencyKey");
        String key = (String) keyValue.getValue();
        if (!key.isEmpty()) {
            ColumnSpec keyColumn = byName.get(key);
            if (keyColumn == null) {
                report.error(DiagnosticId.KEY_NOT_COLUMN, keyValue, "idempotency key \"" + key + "\" is not a"
                        + " declared column; declared columns are " + String.join(", ", byName.keySet().stream()
                        .sorted().toList()) + " (or leave idempotencyKey empty for no deduplication)");
            } else if (!keyColumn.kind().canBeIdempotencyKey()) {
                report.error(DiagnosticId.KEY_TYPE, keyValue, "idempotency key \"" + key + "\" has type "
                        + keyColumn.canonicalType() + ", which cannot deduplicate exactly; use a column of type"
                        + " string, bigint, decimal, date or timestamp");
            }
        }

        AnnotationValue retentionValue = values.get("retention");
        String retention = (String) retentionValue.getValue();
        OptionalLong retentionMillis = OptionalLong.empty();
        if (!retention.isEmpty()) {
            retentionMillis = Retention.parseMillis(retention);
            if (retentionMillis.isEmpty()) {
                report.error(DiagnosticId.RETENTION, retentionValue, "retention \"" + retention + "\" is not"
                        + " valid: write a positive <integer><s|m|h|d|w>, e.g. \"7d\" or \"12h\", or leave it empty"
                        + " to keep the log forever");
            }
        }

        String drift = ((VariableElement) values.get("onSchemaDrift").getValue()).getSimpleName().toString();

        if (!report.isClean()) {
            return Optional.empty();
        }
        return Optional.of(new StreamDeclaration(
                packageOf(type),
                generatedBaseName(type),
                type.getQualifiedName().toString(),
                name,
                List.copyOf(columns),
                key.isEmpty() ? null : key,
                retention.isEmpty() ? null : retention,
                retentionMillis,
                drift));
    }

    private void generate(TypeElement type, StreamDeclaration stream) {
        registry.add(stream.name(), stream);
        Filer filer = env.getFiler();
        Map<String, String> sources = Map.of(
                stream.eventType(), StreamSources.event(stream),
                stream.decoderType(), StreamSources.decoder(stream),
                stream.descriptorType(), StreamSources.descriptor(stream));
        for (Map.Entry<String, String> source : new TreeMap<>(sources).entrySet()) {
            try {
                JavaFileObject file = filer.createSourceFile(stream.qualified(source.getKey()), type);
                try (Writer out = file.openWriter()) {
                    out.write(source.getValue());
                }
            } catch (IOException e) {
                Messager messager = env.getMessager();
                messager.printMessage(Diagnostic.Kind.ERROR, "Interlace could not write "
                        + stream.qualified(source.getKey()) + ": " + e.getMessage(), type);
            }
        }
    }

    private AnnotationMirror findAnnotation(TypeElement type) {
        for (AnnotationMirror mirror : type.getAnnotationMirrors()) {
            TypeElement annotationType = (TypeElement) mirror.getAnnotationType().asElement();
            if (annotationType.getQualifiedName().contentEquals(ANNOTATION)) {
                return mirror;
            }
        }
        throw new IllegalStateException("unreachable: " + type + " was returned as annotated with @Stream");
    }

    private Map<String, AnnotationValue> valuesWithDefaults(AnnotationMirror mirror) {
        Elements elements = env.getElementUtils();
        Map<String, AnnotationValue> values = new HashMap<>();
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry
                : elements.getElementValuesWithDefaults(mirror).entrySet()) {
            values.put(entry.getKey().getSimpleName().toString(), entry.getValue());
        }
        // Explicit values are the ones javac can point at; prefer them over defaults.
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry
                : mirror.getElementValues().entrySet()) {
            values.put(entry.getKey().getSimpleName().toString(), entry.getValue());
        }
        return values;
    }

    private String packageOf(TypeElement type) {
        PackageElement pkg = env.getElementUtils().getPackageOf(type);
        return pkg.isUnnamed() ? "" : pkg.getQualifiedName().toString();
    }

    /** {@code Orders} for a top-level class, {@code OuterOrders} for {@code Outer.Orders}. */
    private static String generatedBaseName(TypeElement type) {
        StringBuilder name = new StringBuilder(type.getSimpleName());
        Element enclosing = type.getEnclosingElement();
        while (enclosing instanceof TypeElement outer) {
            name.insert(0, outer.getSimpleName());
            enclosing = outer.getEnclosingElement();
        }
        return name.toString();
    }
}
