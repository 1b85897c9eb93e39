package dev.interlace.runtime.ops;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Formats a log record as one line: UTC timestamp, level, logger, message, e.g.
 * {@code 2026-12-01T15:37:06.123Z INFO dev.interlace.runtime.http.HttpApi HTTP on netty ...}.
 *
 * <p>The JDK's default puts the date and the logger on one line and the level and message on the next, which
 * breaks {@code grep} and every log shipper that reads a line as an event. A thrown exception's stack trace still
 * follows its line.
 */
public final class OneLineLogFormatter extends Formatter {

    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);
    private static final Logger KAFKA = Logger.getLogger("org.apache.kafka");

    /**
     * Puts this format on the root logger's console handlers, unless the user configured java.util.logging
     * themselves ({@code java.util.logging.config.file}, {@code java.util.logging.config.class} or
     * {@code java.util.logging.SimpleFormatter.format}): their configuration wins.
     */
    public static void installOnConsoleUnlessConfigured() {
        for (String property : new String[] {
                "java.util.logging.config.file",
                "java.util.logging.config.class",
                "java.util.logging.SimpleFormatter.format"}) {
            if (System.getProperty(property) != null) {
                return;
            }
        }
        for (Handler handler : LogManager.getLogManager().getLogger("").getHandlers()) {
            if (handler instanceof ConsoleHandler) {
                handler.setFormatter(new OneLineLogFormatter());
            }
        }
        // Kafka's client logs every connection and its whole configuration at INFO; its warnings are what an
        // operator needs (java.util.logging holds loggers weakly: the field keeps the level set).
        KAFKA.setLevel(Level.WARNING);
    }

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(128)
                .append(TIMESTAMP.format(record.getInstant()))
                .append(' ').append(record.getLevel().getName())
                .append(' ').append(record.getLoggerName() == null ? "-" : record.getLoggerName())
                .append(' ').append(formatMessage(record))
                .append(System.lineSeparator());
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        return line.toString();
    }
}
