package dev.interlace.runtime.model;

import dev.interlace.annotations.Materialise;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A declared model.
 *
 * @param name model name, also its table or view name
 * @param schema the schema the model's relation lives in ({@code main} by default)
 * @param materialise view, table or incremental
 * @param uniqueKey for incremental models, the column that makes each run an upsert; null to append
 * @param sql the model's SELECT
 * @param source where it was declared (a resource path), for messages
 */
public record ModelDefinition(String name, String schema, Materialise materialise, String uniqueKey, String sql,
        String source) {

    static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    public ModelDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(materialise, "materialise");
        Objects.requireNonNull(sql, "sql");
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

    /** {@code schema.name}. */
    public String qualifiedName() {
        return schema + "." + name;
    }
}
