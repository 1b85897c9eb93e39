package dev.interlace.runtime.dedup;

import java.io.IOException;

/**
 * The fetch of the run parts a lookup needs that are not on disk yet ({@link DedupIndex#missingRuns}): any thread may
 * run it, outside whatever lock guards the index, so that other lookups go on meanwhile.
 */
@FunctionalInterface
public interface RunFetch {

    /**
     * Fetches the parts and writes them in place; a part another thread is fetching is waited for, not fetched twice.
     *
     * @throws IOException when a part cannot be had, or its segment was closed meanwhile (a lookup under the index's
     *     owner then fetches it itself, and rebuilds the segment from the log if it still cannot)
     */
    void fetch() throws IOException;
}
