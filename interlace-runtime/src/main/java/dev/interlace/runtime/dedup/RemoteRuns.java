package dev.interlace.runtime.dedup;

import java.io.IOException;

/**
 * Where the runs of segments restored from another node's copy are fetched from. A segment file restored under
 * {@value SegmentFile#REMOTE_SUFFIX} holds its header, filter, fences and block checksums (checked when it opens, as
 * any segment's) and only the holes where its run goes: a lookup that needs a run block fetches the part holding it
 * once, writes it in its place and checks the block against its checksum. So a node can serve from another's segments
 * after fetching about 1.6 bytes a key instead of 18; an unfetchable part fails the lookup's read, and the segment is
 * rebuilt from the log like any unreadable one.
 */
public interface RemoteRuns {

    /** Whether the segment file whose final name is {@code name} ({@code ….seg}) can be fetched here. */
    boolean has(String name);

    /** The bytes of a part: segment file {@code name} is fetched in parts of this many bytes from its start. */
    int partBytes();

    /**
     * Bytes {@code [index * partBytes, (index + 1) * partBytes)} of segment file {@code name} (fewer for the last
     * part).
     *
     * @throws IOException when the part cannot be had (then the segment is rebuilt from the log)
     */
    byte[] part(String name, int index) throws IOException;

    /** How many parts hold the bytes before {@code runOffset} (what a restore writes before the segment opens). */
    static long headParts(long runOffset, int partBytes) {
        return (runOffset + partBytes - 1) / partBytes;
    }
}
