package dev.interlace.runtime.backup;

/** A backup or a restore that was refused or failed; {@link #reason()} says which, the message says what to do. */
public final class BackupException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Reason {
        /** The target is not a new or empty directory, or lies inside the data directory. */
        INVALID_TARGET,
        /** The target lies outside the directory backups may be written under ({@code --backup-root}). */
        OUTSIDE_ROOT,
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
