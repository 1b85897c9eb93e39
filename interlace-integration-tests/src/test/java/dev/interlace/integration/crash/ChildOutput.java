package dev.interlace.integration.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A child process's standard output, read line by line on a daemon thread: every line is kept (for failure
 * messages) and handed to a listener, and the end of the output (the child exited or died) is signalled once.
 */
public final class ChildOutput {

    private final Process process;
    private final Consumer<String> onLine;
    private final Runnable onEnd;
    private final List<String> lines = new ArrayList<>();

    /** Starts reading {@code process}'s output on a daemon thread named {@code threadName}. */
    public ChildOutput(Process process, String threadName, Consumer<String> onLine, Runnable onEnd) {
        this.process = process;
        this.onLine = onLine;
        this.onEnd = onEnd;
        Thread reader = new Thread(this::read, threadName);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                }
                onLine.accept(line);
            }
        } catch (IOException e) {
            // The child died; whoever waits learns it from the exit status.
        } finally {
            onEnd.run();
        }
    }

    /** The lines read so far. */
    public List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Appends every line read so far to {@code text}, one a line. */
    public void appendTo(StringBuilder text) {
        lines().forEach(line -> text.append(line).append('\n'));
    }

    /** The last {@code chars} characters of {@code file} (UTF-8), all of it when shorter, empty when it is missing. */
    public static String tail(Path file, int chars) throws IOException {
        String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        return text.length() > chars ? text.substring(text.length() - chars) : text;
    }
}
