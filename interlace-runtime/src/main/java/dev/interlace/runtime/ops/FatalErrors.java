package dev.interlace.runtime.ops;

/**
 * Ends the process on an {@link OutOfMemoryError}: after one, any thread (the HTTP event loop, the log's writer, the
 * flusher) may have died half way, and a process that stays up but never answers is worse than one that exits and
 * is restarted. Nothing acknowledged is lost by exiting: acknowledged events are already fsynced.
 */
public final class FatalErrors {

    /** The exit status after an out-of-memory error. */
    public static final int OUT_OF_MEMORY_STATUS = 3;

    private FatalErrors() {}

    /** Halts the JVM if {@code failure} is, or was caused by, an {@link OutOfMemoryError}; returns otherwise. */
    public static void exitOnOutOfMemory(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryError) {
                try {
                    System.err.println("interlace: out of memory (" + cause.getMessage() + "); exiting with status "
                            + OUT_OF_MEMORY_STATUS + " so that a supervisor restarts a healthy process");
                } finally {
                    Runtime.getRuntime().halt(OUT_OF_MEMORY_STATUS);
                }
            }
            if (cause.getCause() == cause) {
                return;
            }
        }
    }

    /** Makes every thread without its own handler end the process on an out-of-memory error. */
    public static void installDefaultHandler() {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            exitOnOutOfMemory(failure);
            if (previous != null) {
                previous.uncaughtException(thread, failure);
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                failure.printStackTrace();
            }
        });
    }
}
