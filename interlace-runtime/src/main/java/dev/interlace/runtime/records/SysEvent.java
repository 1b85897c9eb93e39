package dev.interlace.runtime.records;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link SysRecord} says happened; its {@link #wire()} name is what {@code GET /logs/sys} shows and filters on.
 * Each constant is documented there (a test holds the two together).
 */
public enum SysEvent {
    /** The process started (id {@code boot-…}). */
    STARTUP,
    /** The process stopped. */
    SHUTDOWN,
    /** A stream's tables were migrated to its declared schema. */
    MIGRATION,
    /** Flushing a stream failed, and is retried. */
    FLUSH_FAILING,
    /** A failing flush worked again. */
    FLUSH_RECOVERED,
    /** A stream's flush stopped: the log was trimmed past its watermark, so flushing on would leave a hole. */
    FLUSH_STOPPED,
    /** This node's flusher stands by: another holds the stream's flush lease. */
    FLUSH_STANDBY,
    /** This node's flusher took a stream's flush lease over. */
    FLUSH_TAKEOVER,
    /** A stream's backlog reached {@code --max-pending}. */
    BACKPRESSURE_ON,
    /** A stream's backlog fell below {@code --max-pending} again. */
    BACKPRESSURE_OFF,
    /** The retention sweep trimmed streams and records. */
    RETENTION_SWEEP,
    /** A consumer group changed hands. */
    LEASE_TAKEOVER,
    /** An admin gave a consumer group to one more key. */
    GROUP_GRANTED,
    /** A replay moved quarantined events into a stream. */
    QUARANTINE_REPLAY,
    /** The previous run ended on a fatal error of the JVM. */
    FATAL_EXIT,
    /** A long-lived component failed. */
    COMPONENT_FAILED,
    /** A failed component works again. */
    COMPONENT_RECOVERED,
    /** A failed component that serves publishes had not recovered, and the process exited. */
    COMPONENT_EXIT,
    /** The server runs with authentication off. */
    INSECURE_NO_AUTH,
    /** An online backup was taken, or failed. */
    BACKUP,
    /** A warehouse replica was silent longer than {@code --replica-timeout-ms}: the log's trims stop waiting for it. */
    REPLICA_DROPPED;

    /** The name records carry, e.g. {@code flush_failing}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every {@link #wire()} name, in declaration order. */
    public static List<String> wireNames() {
        return Arrays.stream(values()).map(SysEvent::wire).toList();
    }
}
