package dev.interlace.runtime.backup;

/** A backup or a restore that was refused or failed; {@link #reason()} says which, the message says what to do. */
public final class BackupException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Reason {
        /** The target is not an absolute path to a new or empty directory. */
        INVALID_TARGET,
        /** Another backup is being taken by this server. */
        RUNNING,
        /** Writing the backup failed (its directory holds no manifest: it is not a backup). */
        FAILED,
        /** A backup's manifest is missing or unreadable, or a file is missing or differs from its checksum. */
        CORRUPT
    }

    private final Reason reason;

    public BackupException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public BackupException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
