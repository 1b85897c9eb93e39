package dev.interlace.runtime.model;

/**
 * A model computed in Java. Annotate the class with {@code @Model(name, dependsOn, materialise, uniqueKey)}; it needs
 * a public no-argument constructor.
 *
 * <p>{@link #run} executes inside the model's transaction on {@link ModelContext#connection()}: for a {@code table}
 * model, replace the whole table ({@link ModelContext#table()}); for an {@code incremental} one, process only the rows
 * of each stream in {@link ModelContext#deltas()} — the runner commits your output and the model's watermarks
 * together, so each stream row is processed exactly once. Do not commit or roll back yourself.
 */
public interface JavaModel {

    /**
     * Brings the model up to date.
     *
     * @return the rows written (shown in the run's record)
     * @throws Exception anything: the model is recorded as failed with the message, its dependants are skipped, and
     *     nothing of this run is committed
     */
    long run(ModelContext context) throws Exception;
}
