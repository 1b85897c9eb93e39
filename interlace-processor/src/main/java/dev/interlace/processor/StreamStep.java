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
import javax.annotation.processing.Filer;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;

/**
 * Validates every {@code @Stream} into a {@link Report} and, for valid ones, generates the event record, decoder
 * and descriptor, and records the stream in {@link KnownStreams}; when processing is over, writes the compilation's
 * registry and its service file. A stream needs nothing from later rounds, so this step never defers.
 */
final class StreamStep extends DeclarationStep<StreamDeclaration> {

    static final String ANNOTATION = "dev.interlace.annotations.Stream";
    static final String REGISTRY_INTERFACE = "dev.interlace.runtime.stream.StreamRegistry";

    StreamStep(ProcessingEnvironment env, KnownStreams streams) {
        super(env, streams, new Registries<>(env, REGISTRY_INTERFACE, StreamSources.REGISTRY_NAME,
                StreamDeclaration::packageName, StreamSources::registry));
    }

    @Override
    public String annotation() {
        return ANNOTATION;
    }

    /** The most partitions a stream may have (the runtime's {@code StreamPartitions.MAX}). */
    static final int MAX_PARTITIONS = 256;

    @Override
    Optional<StreamDeclaration> validate(TypeElement type, AnnotationMirror mirror, Report report) {
        Map<String, AnnotationValue> values = Annotations.values(env.getElementUtils(), mirror);

        AnnotationValue nameValue = values.get("name");
        String name = Annotations.string(nameValue);
        if (!Names.isValid(name) || name.contains("__")) {
            report.error(DiagnosticId.STREAM_NAME, nameValue, "stream name \"" + name + "\" is not valid: use"
                    + " lower-case letters, digits and single underscores, starting with a letter, at most 63"
                    + " characters (" + Names.RULE + ", no \"__\"), e.g. \"orders\"");
        } else {
            streams.declare(name, type.getQualifiedName().toString()).ifPresent(first -> report.error(
                    DiagnosticId.DUPLICATE_STREAM, nameValue, "stream \"" + name + "\" is already declared by "
                            + first + "; stream names must be unique, so rename one of them"));
        }

        AnnotationValue schemaValue = values.get("schema");
        List<? extends AnnotationValue> schema = Annotations.list(schemaValue);
        if (schema.isEmpty()) {
            report.error(DiagnosticId.EMPTY_SCHEMA, schemaValue, "stream \"" + name + "\" declares no columns;"
                    + " add at least one, e.g. schema = {\"id string not null\"}");
        }
        List<ColumnSpec> columns = new ArrayList<>();
        Map<String, ColumnSpec> byName = new HashMap<>();
        for (AnnotationValue element : schema) {
            SchemaParser.Result parsed = SchemaParser.parse(Annotations.string(element));
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
        String key = Annotations.string(keyValue);
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
        String retention = Annotations.string(retentionValue);
        OptionalLong retentionMillis = OptionalLong.empty();
        if (!retention.isEmpty()) {
            retentionMillis = Retention.parseMillis(retention);
            if (retentionMillis.isEmpty()) {
                report.error(DiagnosticId.RETENTION, retentionValue, "retention \"" + retention + "\" is not"
                        + " valid: write a positive <integer><s|m|h|d|w>, e.g. \"7d\" or \"12h\", or leave it empty"
                        + " to keep the log forever");
            }
        }

        String drift = Annotations.enumConstant(values.get("onSchemaDrift"));

        AnnotationValue partitionsValue = values.get("partitions");
        int partitions = ((Number) partitionsValue.getValue()).intValue();
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            report.error(DiagnosticId.PARTITIONS, partitionsValue, "partitions = " + partitions + " is not valid:"
                    + " a stream has 1 to " + MAX_PARTITIONS + " partitions (1, the default, for one log)");
        }
        AnnotationValue partitionKeyValue = values.get("partitionKey");
        String partitionKey = Annotations.string(partitionKeyValue);
        if (!partitionKey.isEmpty()) {
            if (!key.isEmpty()) {
                report.error(DiagnosticId.PARTITIONS, partitionKeyValue, "partitionKey \"" + partitionKey + "\" is"
                        + " not allowed with an idempotency key: a keyed stream is partitioned by its key, so that"
                        + " deduplication stays exact; leave partitionKey empty");
            } else if (!byName.containsKey(partitionKey)) {
                report.error(DiagnosticId.PARTITIONS, partitionKeyValue, "partitionKey \"" + partitionKey + "\" is"
                        + " not a declared column; declared columns are " + String.join(", ", byName.keySet()
                        .stream().sorted().toList()));
            } else if (!byName.get(partitionKey).kind().canBeIdempotencyKey()) {
                report.error(DiagnosticId.PARTITIONS, partitionKeyValue, "partitionKey \"" + partitionKey + "\" has"
                        + " type " + byName.get(partitionKey).canonicalType() + "; use a column of type string,"
                        + " bigint, decimal, date or timestamp");
            }
        }

        if (!report.isClean()) {
            return Optional.empty();
        }
        return Optional.of(new StreamDeclaration(
                Annotations.packageOf(env.getElementUtils(), type),
                generatedBaseName(type),
                type.getQualifiedName().toString(),
                name,
                List.copyOf(columns),
                key.isEmpty() ? null : key,
                retention.isEmpty() ? null : retention,
                retentionMillis,
                drift,
                partitions,
                partitionKey.isEmpty() ? null : partitionKey));
    }

    /** Adds the stream to the registry and writes its event record, decoder, descriptor and index entry. */
    @Override
    void accept(TypeElement type, StreamDeclaration stream) {
        registry.add(stream.name(), stream, type);
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
                env.getMessager().printMessage(Diagnostic.Kind.ERROR, "Interlace could not write "
                        + stream.qualified(source.getKey()) + ": " + e.getMessage(), type);
            }
        }
        writeIndexEntry(type, stream);
    }

    /** Lets compilations that have this one's output on their class path find the stream by name. */
    private void writeIndexEntry(TypeElement type, StreamDeclaration stream) {
        String entry = KnownStreams.indexEntry(stream.name());
        try {
            FileObject file = env.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "", entry, type);
            try (Writer out = file.openWriter()) {
                out.write(stream.qualified(stream.descriptorType()) + "\n");
            }
        } catch (IOException e) {
            env.getMessager().printMessage(Diagnostic.Kind.ERROR, "Interlace could not write " + entry + ": "
                    + e.getMessage(), type);
        }
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
