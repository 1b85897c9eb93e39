package dev.interlace.runtime.log.tck;

import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.SqliteStreamLog;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The SQLite log against the {@link StreamLogContract} with a deduplication index that keeps only two keys in memory
 * and merges segments in pairs: nearly every key a test looks up is in a sealed segment on disk, found through its
 * filter and run, and segments are sealed, merged and trimmed while the contract's tests run.
 */
class SqliteStreamLogSealedKeysContractTest extends StreamLogContract {

    @Override
    protected StreamLog openLog(Path dataDirectory, LogSettings settings, Watermarks watermarks, Clock clock) {
        return new SqliteStreamLog(dataDirectory, settings.withDedup(new DedupIndex.Settings(2, 2)), watermarks,
                CommitListener.NONE, clock);
    }
}
