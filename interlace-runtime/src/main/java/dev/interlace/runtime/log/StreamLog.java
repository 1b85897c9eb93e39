package dev.interlace.runtime.log;

/**
 * A complete log backend: the event log, its consumer groups, its publish records and quarantine replay in one
 * object.
 *
 * <p>Each concern has its own interface ({@link EventLog}, {@link ConsumerGroups}, {@link PublishRecords},
 * {@link QuarantineStore}) and its own conformance suite; the runtime's components depend on the narrowest one they
 * use. {@code LogModule} binds each of them to whatever {@code StreamLog} is bound to, so overriding {@code StreamLog} (as the fault-injecting
 * tests do) replaces all of them. {@code StreamLog.Health} is {@link EventLog.Health}, inherited.
 */
public interface StreamLog extends EventLog, ConsumerGroups, PublishRecords, QuarantineStore {

    /**
     * Writes a consistent snapshot of the log's own files into {@code directory} while appends go on (an online
     * backup), and returns their names. A log whose events live elsewhere (a Kafka cluster) has no file to copy: it
     * returns none, which is the default.
     */
    default java.util.List<String> snapshotInto(java.nio.file.Path directory) throws java.io.IOException {
        return java.util.List.of();
    }
}
