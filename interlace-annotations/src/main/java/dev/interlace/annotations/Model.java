package dev.interlace.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a model: a table or view in the warehouse derived from streams or other models, brought up to date after
 * every flush that changes its inputs.
 *
 * <p>Either give {@link #sql()} (a SQL model; its dependencies come from the SQL), or put the annotation on a class
 * implementing {@code dev.interlace.runtime.model.JavaModel} and list its inputs in {@link #dependsOn()}. SQL models
 * can also be plain files under {@code src/main/resources/models/}.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Model {

    /** Model name, {@code [a-z][a-z0-9_]{0,62}}; the table is {@code main.<name>} (or the schema given in SQL files). */
    String name();

    /** The model's SELECT; empty for a Java model. */
    String sql() default "";

    /** Tables a Java model reads, e.g. {@code "streams.orders"} or another model's name. */
    String[] dependsOn() default {};

    /** How the result is kept. */
    Materialise materialise() default Materialise.TABLE;

    /** For incremental models: the column that identifies a row, making each run an upsert; empty to append. */
    String uniqueKey() default "";
}
