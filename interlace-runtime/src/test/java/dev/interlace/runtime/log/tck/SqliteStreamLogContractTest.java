package dev.interlace.runtime.log.tck;

import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The SQLite log against the {@link StreamLogContract}: the reference run of the conformance suite. Each test's log
 * lives in its own temporary directory ({@code <dir>/log.sqlite}); the contract closes every log it opened after each
 * test.
 */
class SqliteStreamLogContractTest extends StreamLogContract {

    @Override
    protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
        return new SqliteStreamLog(dataDirectory, settings, watermarks, CommitListener.NONE, clock);
    }
}
