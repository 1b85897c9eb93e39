package dev.interlace.runtime.model;

import dev.interlace.annotations.Materialise;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A declared model: SQL (a SELECT whose dependencies come from its text) or Java (a {@link JavaModel} with declared
 * dependencies).
 *
 * @param name model name, also its table or view name
 * @param schema the schema the model's relation lives in ({@code main} by default)
 * @param materialise view, table or incremental
 * @param uniqueKey for incremental models, the column that makes each run an upsert; null to append
 * @param sql the model's SELECT; null for a Java model
 * @param javaModel the Java model; null for a SQL model
 * @param dependsOn for a Java model, what it reads: {@code streams.<name>} or model names; empty for SQL models
 * @param source where it was declared (a resource path or a class), for messages
 */
public record ModelDefinition(String name, String schema, Materialise materialise, String uniqueKey, String sql,
        JavaModel javaModel, List<String> dependsOn, String source) {

    static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    public ModelDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(materialise, "materialise");
        if ((sql == null) == (javaModel == null)) {
            throw new ModelException(source + ": a model has either SQL or a Java implementation");
        }
        dependsOn = List.copyOf(dependsOn);
        if (javaModel != null && materialise == Materialise.VIEW) {
            throw new ModelException(source + ": a Java model cannot be a view; use table or incremental");
        }
        if (!NAME.matcher(name).matches()) {
            throw new ModelException(source + ": model name \"" + name + "\" must match " + NAME.pattern());
        }
        if (!NAME.matcher(schema).matches() || schema.equals("streams") || schema.equals("interlace")) {
            throw new ModelException(source + ": schema \"" + schema + "\" is not usable for models (streams and"
                    + " interlace are reserved)");
        }
        if (uniqueKey != null && materialise != Materialise.INCREMENTAL) {
            throw new ModelException(source + ": unique_key only applies to incremental models");
        }
    }

    /** A SQL model. */
    public static ModelDefinition sql(String name, String schema, Materialise materialise, String uniqueKey,
            String sql, String source) {
        return new ModelDefinition(name, schema, materialise, uniqueKey, sql, null, List.of(), source);
    }

    /** A Java model (what generated model registries build). */
    public static ModelDefinition java(String name, Materialise materialise, String uniqueKey, List<String> dependsOn,
            JavaModel model, String source) {
        return new ModelDefinition(name, "main", materialise, uniqueKey, null, model, dependsOn, source);
    }

    /** {@code schema.name}. */
    public String qualifiedName() {
        return schema + "." + name;
    }
}
