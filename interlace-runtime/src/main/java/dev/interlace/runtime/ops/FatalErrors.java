package dev.interlace.runtime.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Ends the process on an error of the virtual machine itself: an {@link OutOfMemoryError}, an {@link InternalError}
 * or an {@link UnknownError}. After one, any thread (the HTTP event loop, the log's writer, the flusher) may have died
 * half way, and a process that stays up but never answers is worse than one that exits and is restarted. Nothing
 * acknowledged is lost by exiting: acknowledged events are already fsynced.
 *
 * <p>A {@link StackOverflowError} is not fatal: it unwinds the one thread that overflowed, and treating it as fatal
 * would let one deeply nested request end the process.
 *
 * <p>Before it halts, the process writes why to {@link #MARKER} in its data directory; the next start turns that
 * file into a {@code fatal_exit} system record, so that the reason outlives the process and its console.
 */
public final class FatalErrors {

    /** The exit status after a fatal error of the virtual machine. */
    public static final int OUT_OF_MEMORY_STATUS = 3;

    /** The file in the data directory that says why the previous run ended on a fatal error. */
    public static final String MARKER = "fatal-exit.txt";

    private static volatile Path marker;

    private FatalErrors() {}

    /** Halts the JVM if {@code failure} is, or was caused by, a fatal error of the virtual machine; returns otherwise. */
    public static void exitIfFatal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryError || cause instanceof InternalError || cause instanceof UnknownError) {
                try {
                    String reason = (cause instanceof OutOfMemoryError ? "out of memory" : cause.getClass().getName())
                            + " (" + cause.getMessage() + ") in thread " + Thread.currentThread().getName();
                    System.err.println("interlace: " + reason + "; exiting with status " + OUT_OF_MEMORY_STATUS
                            + " so that a supervisor restarts a healthy process");
                    writeMarker(Instant.now() + " " + reason + "; the process exited with status "
                            + OUT_OF_MEMORY_STATUS);
                } catch (Throwable ignored) {
                    // the process ends either way
                } finally {
                    Runtime.getRuntime().halt(OUT_OF_MEMORY_STATUS);
                }
            }
            if (cause.getCause() == cause) {
                return;
            }
        }
    }

    /** Makes every thread without its own handler end the process on a fatal error. */
    public static void installDefaultHandler() {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            exitIfFatal(failure);
            if (previous != null) {
                previous.uncaughtException(thread, failure);
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                failure.printStackTrace();
            }
        });
    }

    /**
     * Reads and removes the reason the previous run in {@code dataDirectory} ended on a fatal error, if it did, and
     * makes a fatal error of this run leave its reason there.
     */
    public static Optional<String> takePreviousAndWatch(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(MARKER);
        Optional<String> previous;
        try {
            previous = Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
            Files.delete(file);
        } catch (NoSuchFileException e) {
            previous = Optional.empty();
        }
        marker = file;
        return previous;
    }

    private static void writeMarker(String reason) throws IOException {
        Path file = marker;
        if (file != null) {
            Files.writeString(file, reason + "\n", StandardCharsets.UTF_8);
        }
    }
}
