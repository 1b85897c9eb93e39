package dev.interlace.runtime.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class OneLineLogFormatterTest {

    private final OneLineLogFormatter formatter = new OneLineLogFormatter();

    private static LogRecord record(Level level, String message, Object... parameters) {
        LogRecord record = new LogRecord(level, message);
        record.setInstant(Instant.parse("2026-12-01T15:38:16.829412Z"));
        record.setLoggerName("dev.interlace.runtime.http.HttpApi");
        record.setParameters(parameters);
        return record;
    }

    @Test
    void aRecordIsOneLineOfUtcTimestampLevelLoggerAndMessage() {
        assertThat(formatter.format(record(Level.INFO, "HTTP on {0}", "netty")))
                .isEqualTo("2026-12-01T15:38:16.829Z INFO dev.interlace.runtime.http.HttpApi HTTP on netty"
                        + System.lineSeparator());
    }

    @Test
    void aThrownExceptionsStackTraceFollowsItsLine() {
        LogRecord record = record(Level.WARNING, "flush failing");
        record.setThrown(new IllegalStateException("disk full"));
        String[] lines = formatter.format(record).split(System.lineSeparator());
        assertThat(lines[0])
                .isEqualTo("2026-12-01T15:38:16.829Z WARNING dev.interlace.runtime.http.HttpApi flush failing");
        assertThat(lines[1]).isEqualTo("java.lang.IllegalStateException: disk full");
    }
}
