package dev.interlace.processor;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Modifier;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.ClassOrInterfaceDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.RecordDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.printer.DefaultPrettyPrinter;
import com.github.javaparser.printer.configuration.DefaultConfigurationOption;
import com.github.javaparser.printer.configuration.DefaultPrinterConfiguration;
import com.github.javaparser.printer.configuration.DefaultPrinterConfiguration.ConfigOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Builds the generated sources of a stream with javaparser: the compilation units are assembled as syntax trees and
 * printed by javaparser's printer, so the output is well-formed, consistently formatted and deterministic.
 */
final class StreamSources {

    static final String REGISTRY_NAME = "InterlaceStreamRegistry";

    private static final String RUNTIME = "dev.interlace.runtime.stream.";
    private static final String GENERATOR = "dev.interlace.processor.InterlaceProcessor";
    private static final JavaParser PARSER = new JavaParser(
            new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));

    /** Locals of the generated decode method; value locals are renamed around them. */
    private static final List<String> DECODER_LOCALS = List.of("parser", "errors", "seen", "undeclared", "field");

    private StreamSources() {}

    /** The typed event record. */
    static String event(StreamDeclaration stream) {
        CompilationUnit unit = unit(stream.packageName());
        List<String> components = componentNames(stream, List.of());
        RecordDeclaration record = new RecordDeclaration(
                new NodeList<>(Modifier.publicModifier()), stream.eventType());
        generated(record);
        record.setJavadocComment("An event of stream {@code " + stream.name() + "}, generated from {@link "
                + linkTarget(stream) + "}.\n\n"
                + "<p>Components follow the declared columns:\n" + describeColumns(stream) + ".");
        for (int i = 0; i < stream.columns().size(); i++) {
            ColumnSpec column = stream.columns().get(i);
            String type = importType(unit, column.kind().componentType(column.notNull()));
            record.addParameter(new Parameter(PARSER.parseType(type).getResult().orElseThrow(), components.get(i)));
        }
        unit.addImport(RUNTIME + "StreamEvent");
        record.addImplementedType("StreamEvent");

        StringBuilder body = new StringBuilder("{ switch (index) {");
        for (int i = 0; i < components.size(); i++) {
            body.append("case ").append(i).append(": return ").append(components.get(i)).append(';');
        }
        body.append("default: throw new IndexOutOfBoundsException(\"stream ").append(stream.name())
                .append(" has ").append(components.size()).append(" columns, not column \" + index);");
        body.append("} }");
        override(record, "value", "Object", body).addParameter("int", "index");
        return print(unit.addType(record));
    }

    /** The decoder specialised to the schema: one pass over the object with Jackson's streaming parser. */
    static String decoder(StreamDeclaration stream) {
        CompilationUnit unit = unit(stream.packageName());
        unit.addImport("com.fasterxml.jackson.core.JsonParser");
        unit.addImport("com.fasterxml.jackson.core.JsonToken");
        unit.addImport("java.io.IOException");
        unit.addImport("java.util.List");
        unit.addImport(RUNTIME + "DecodeResult");
        unit.addImport(RUNTIME + "EventDecoder");
        unit.addImport(RUNTIME + "FieldErrors");
        unit.addImport(RUNTIME + "Values");
        boolean evolves = stream.onSchemaDrift().equals("EVOLVE");
        if (evolves) {
            unit.addImport("java.util.LinkedHashMap");
            unit.addImport("java.util.Map");
        } else {
            unit.addImport("java.util.HashSet");
            unit.addImport("java.util.Map");
            unit.addImport("java.util.Set");
        }

        ClassOrInterfaceDeclaration decoder = new ClassOrInterfaceDeclaration(
                new NodeList<>(Modifier.publicModifier(), Modifier.finalModifier()), false, stream.decoderType());
        generated(decoder);
        decoder.setJavadocComment("Decodes events of stream {@code " + stream.name() + "} into {@link "
                + stream.eventType() + "}, applying the decoding rule of each column's type and the stream's "
                + "drift policy (" + stream.onSchemaDrift().toLowerCase() + ").");
        decoder.addImplementedType("EventDecoder<" + stream.eventType() + ">");

        StringBuilder columnList = new StringBuilder("List.of(");
        for (int i = 0; i < stream.columns().size(); i++) {
            columnList.append(i == 0 ? "" : ", ").append(literal(stream.columns().get(i).name()));
        }
        columnList.append(")");
        decoder.addFieldWithInitializer("List<String>", "COLUMNS",
                        PARSER.parseExpression(columnList.toString()).getResult().orElseThrow(),
                        Modifier.Keyword.PRIVATE, Modifier.Keyword.STATIC, Modifier.Keyword.FINAL)
                .setJavadocComment("The declared columns, in order.");

        List<String> locals = componentNames(stream, DECODER_LOCALS);
        StringBuilder body = new StringBuilder("{");
        body.append("FieldErrors errors = new FieldErrors();");
        body.append("boolean[] seen = new boolean[").append(stream.columns().size()).append("];");
        body.append(evolves
                ? "Map<String, String> undeclared = new LinkedHashMap<>();"
                : "Set<String> undeclared = new HashSet<>();");
        for (int i = 0; i < stream.columns().size(); i++) {
            ColumnSpec column = stream.columns().get(i);
            body.append(importType(unit, column.kind().boxedType())).append(' ').append(locals.get(i))
                    .append(" = null;");
        }
        body.append("while (parser.nextToken() == JsonToken.FIELD_NAME) {");
        body.append("String field = parser.currentName();");
        body.append("parser.nextToken();");
        body.append("switch (field) {");
        for (int i = 0; i < stream.columns().size(); i++) {
            ColumnSpec column = stream.columns().get(i);
            body.append("case ").append(literal(column.name())).append(":");
            body.append("Values.requireFirst(parser, field, seen[").append(i).append("]);");
            body.append("seen[").append(i).append("] = true;");
            body.append(locals.get(i)).append(" = Values.").append(column.kind().reader()).append("(parser, field, ");
            if (column.kind() == ColumnKind.DECIMAL) {
                body.append(column.precision()).append(", ").append(column.scale()).append(", ");
            }
            body.append(column.notNull()).append(", errors);");
            body.append("break;");
        }
        body.append(evolves
                ? "default: Values.evolving(parser, field, undeclared, COLUMNS, errors);"
                : "default: Values.undeclared(parser, field, undeclared, COLUMNS, errors);");
        body.append("}");
        body.append("}");
        for (int i = 0; i < stream.columns().size(); i++) {
            ColumnSpec column = stream.columns().get(i);
            if (column.notNull()) {
                body.append("if (!seen[").append(i).append("]) { Values.missing(")
                        .append(literal(column.name())).append(", errors); }");
            }
        }
        body.append("if (!errors.isEmpty()) { return new DecodeResult.Invalid<>(errors.list(), errors.count()); }");
        body.append("return new DecodeResult.Valid<>(new ").append(stream.eventType()).append("(")
                .append(String.join(", ", locals)).append("), ")
                .append(evolves ? "undeclared" : "Map.of()").append(");");
        body.append("}");

        override(decoder, "decode", "DecodeResult<" + stream.eventType() + ">", body)
                .addParameter("JsonParser", "parser")
                .addThrownException(PARSER.parseClassOrInterfaceType("IOException").getResult().orElseThrow());
        return print(unit.addType(decoder));
    }

    /** The descriptor holder: the runtime's view of the stream. */
    static String descriptor(StreamDeclaration stream) {
        CompilationUnit unit = unit(stream.packageName());
        unit.addImport("dev.interlace.annotations.SchemaDrift");
        unit.addImport(RUNTIME + "Column");
        unit.addImport(RUNTIME + "ColumnType");
        unit.addImport(RUNTIME + "StreamDescriptor");

        ClassOrInterfaceDeclaration holder = new ClassOrInterfaceDeclaration(
                new NodeList<>(Modifier.publicModifier(), Modifier.finalModifier()), false, stream.descriptorType());
        generated(holder);
        holder.setJavadocComment("Stream {@code " + stream.name() + "} as declared on {@link "
                + linkTarget(stream) + "}.");

        StringBuilder body = new StringBuilder("{ StreamDescriptor.Builder stream = StreamDescriptor.builder(")
                .append(literal(stream.name())).append(");");
        for (ColumnSpec column : stream.columns()) {
            if (column.kind() == ColumnKind.DECIMAL) {
                body.append("stream.column(Column.decimal(").append(literal(column.name())).append(", ")
                        .append(column.precision()).append(", ").append(column.scale()).append(", ")
                        .append(column.notNull()).append("));");
            } else {
                body.append("stream.column(Column.of(").append(literal(column.name())).append(", ColumnType.")
                        .append(column.kind().name()).append(", ").append(column.notNull()).append("));");
            }
        }
        if (stream.idempotencyKey() != null) {
            body.append("stream.idempotencyKey(").append(literal(stream.idempotencyKey())).append(");");
        }
        if (stream.retention() != null) {
            body.append("stream.retention(").append(literal(stream.retention())).append(", ")
                    .append(stream.retentionMillis().getAsLong()).append("L);");
        }
        if (stream.partitions() != 1) {
            body.append("stream.partitions(").append(stream.partitions()).append(");");
        }
        if (stream.partitionKey() != null) {
            body.append("stream.partitionKey(").append(literal(stream.partitionKey())).append(");");
        }
        body.append("stream.onSchemaDrift(SchemaDrift.").append(stream.onSchemaDrift()).append(");")
                .append("stream.schemaVersion(").append(literal(stream.schemaVersion())).append(");")
                .append("stream.declaredBy(").append(literal(stream.declaredBy())).append(");")
                .append("stream.decoder(new ").append(stream.decoderType()).append("());")
                .append("return stream.build(); }");
        holder.addFieldWithInitializer("StreamDescriptor", "DESCRIPTOR",
                        PARSER.parseExpression("describe()").getResult().orElseThrow(),
                        Modifier.Keyword.PUBLIC, Modifier.Keyword.STATIC, Modifier.Keyword.FINAL)
                .setJavadocComment("Schema version " + stream.schemaVersion() + ":\n" + describeColumns(stream) + ".");
        holder.addConstructor(Modifier.Keyword.PRIVATE);
        MethodDeclaration describe = holder.addMethod("describe", Modifier.Keyword.PRIVATE, Modifier.Keyword.STATIC);
        describe.setType("StreamDescriptor");
        describe.setBody(block(body.toString()));
        unit.addType(holder);
        return print(unit);
    }

    /** The registry of every stream in this compilation, found by the runtime with {@code ServiceLoader}. */
    static String registry(String packageName, String simpleName, List<StreamDeclaration> streams) {
        CompilationUnit unit = unit(packageName);
        unit.addImport("java.util.List");
        unit.addImport(RUNTIME + "StreamDescriptor");
        unit.addImport(RUNTIME + "StreamRegistry");

        ClassOrInterfaceDeclaration registry = new ClassOrInterfaceDeclaration(
                new NodeList<>(Modifier.publicModifier(), Modifier.finalModifier()), false, simpleName);
        generated(registry);
        registry.setJavadocComment("The streams declared in this compilation, listed in {@code META-INF/services}.");
        registry.addImplementedType("StreamRegistry");
        StringBuilder list = new StringBuilder("{ return List.of(");
        for (int i = 0; i < streams.size(); i++) {
            StreamDeclaration stream = streams.get(i);
            String holder = stream.packageName().equals(packageName)
                    ? stream.descriptorType()
                    : stream.qualified(stream.descriptorType());
            list.append(i == 0 ? "" : ", ").append(holder).append(".DESCRIPTOR");
        }
        list.append("); }");
        override(registry, "streams", "List<StreamDescriptor>", list);
        return print(unit.addType(registry));
    }

    /** Adds a public {@code @Override} method to {@code type}: its name, return type and body; parameters follow. */
    static MethodDeclaration override(TypeDeclaration<?> type, String name, String returnType, CharSequence body) {
        MethodDeclaration method = type.addMethod(name, Modifier.Keyword.PUBLIC);
        method.addMarkerAnnotation("Override");
        method.setType(returnType);
        method.setBody(block(body.toString()));
        return method;
    }

    static String print(CompilationUnit unit) {
        DefaultPrinterConfiguration configuration = new DefaultPrinterConfiguration();
        configuration.addOption(new DefaultConfigurationOption(ConfigOption.ORDER_IMPORTS));
        configuration.addOption(new DefaultConfigurationOption(ConfigOption.COLUMN_ALIGN_FIRST_METHOD_CHAIN));
        return new DefaultPrettyPrinter(configuration).print(unit);
    }

    static CompilationUnit unit(String packageName) {
        CompilationUnit unit = new CompilationUnit();
        if (!packageName.isEmpty()) {
            unit.setPackageDeclaration(packageName);
        }
        unit.addImport("javax.annotation.processing.Generated");
        return unit;
    }

    static void generated(TypeDeclaration<?> type) {
        type.addSingleMemberAnnotation("Generated", new StringLiteralExpr(GENERATOR));
    }

    /** Record component (and decoder local) names, unique and clear of {@code reserved}. */
    private static List<String> componentNames(StreamDeclaration stream, List<String> reserved) {
        Set<String> taken = new HashSet<>(reserved);
        List<String> names = new ArrayList<>();
        for (ColumnSpec column : stream.columns()) {
            String name = JavaNames.componentName(column.name(), taken);
            taken.add(name);
            names.add(name);
        }
        return names;
    }

    /** Imports a qualified type outside {@code java.lang} and returns its simple name. */
    private static String importType(CompilationUnit unit, String type) {
        int dot = type.lastIndexOf('.');
        if (dot < 0) {
            return type;
        }
        unit.addImport(type);
        return type.substring(dot + 1);
    }

    private static String describeColumns(StreamDeclaration stream) {
        List<String> declarations = new ArrayList<>();
        for (ColumnSpec column : stream.columns()) {
            declarations.add("{@code " + column.declaration() + "}");
        }
        return String.join(",\n", declarations);
    }

    /** The annotated class's name as seen from its own package, e.g. {@code Outer.Orders}. */
    private static String linkTarget(StreamDeclaration stream) {
        String qualified = stream.declaredBy();
        return stream.packageName().isEmpty() ? qualified : qualified.substring(stream.packageName().length() + 1);
    }

    static String literal(String text) {
        return new StringLiteralExpr().setString(text).toString();
    }

    static BlockStmt block(String code) {
        ParseResult<BlockStmt> result = PARSER.parseBlock(code);
        return result.getResult().filter(b -> result.isSuccessful())
                .orElseThrow(() -> new IllegalStateException("generated code does not parse: " + result.getProblems()
                        + "\n" + code));
    }
}
