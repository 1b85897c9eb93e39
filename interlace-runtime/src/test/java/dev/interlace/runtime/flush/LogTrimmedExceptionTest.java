package dev.interlace.runtime.flush;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** When a flush must refuse a log that no longer holds the events right after its watermark, and when not. */
class LogTrimmedExceptionTest {

    @Test
    void aWarehouseWithRowsRefusesAGapBetweenItsWatermarkAndTheLogsFirstEvent() {
        assertThatThrownBy(() -> LogTrimmedException.check("orders", 10, 20, 16, false))
                .isInstanceOf(LogTrimmedException.class)
                .hasMessageContaining("stream orders")
                .hasMessageContaining("through offset 10, the log's first is 16, so events 11-15");
        // Every event trimmed, some of them never flushed here.
        assertThatThrownBy(() -> LogTrimmedException.check("orders", 10, 20, 21, false))
                .isInstanceOf(LogTrimmedException.class);
        // Nothing of this stream flushed yet, but the warehouse holds rows of others: the stream's start is gone.
        assertThatThrownBy(() -> LogTrimmedException.check("orders", 0, 9, 5, true))
                .isInstanceOf(LogTrimmedException.class);
    }

    @Test
    void aContiguousLogACaughtUpStreamOrANewWarehouseIsFlushed() {
        assertThatCode(() -> LogTrimmedException.check("orders", 10, 20, 11, true)).doesNotThrowAnyException();
        assertThatCode(() -> LogTrimmedException.check("orders", 10, 20, 3, true)).doesNotThrowAnyException();
        // Trimmed through the watermark exactly, nothing after it yet.
        assertThatCode(() -> LogTrimmedException.check("orders", 10, 10, 11, true)).doesNotThrowAnyException();
        // A new data directory starts from what the log still holds (its retention window).
        assertThatCode(() -> LogTrimmedException.check("orders", 0, 20, 16, false)).doesNotThrowAnyException();
    }
}
