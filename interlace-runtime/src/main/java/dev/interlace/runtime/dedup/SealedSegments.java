package dev.interlace.runtime.dedup;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The sealed part of one stream's {@link DedupIndex}: its {@link SegmentFile}s in offset order, which hold every key
 * (not trimmed) through {@link #sealedThrough()}, and the files in its directory. It opens and checks them, builds
 * segments from the log's keys ({@link KeySource}) — a missing, corrupt or unreadable one is rebuilt from there — puts
 * sealed and merged ones in use and deletes those a trim empties.
 *
 * <p>Owned by the log's writer thread, like the index; {@link #build} and {@link #merge} also run on the background
 * threads, which only write new files.
 */
final class SealedSegments {

    private static final Logger LOG = Logger.getLogger(DedupIndex.class.getName());

    private final Path directory;
    private final KeySource source;
    private final SegmentListener listener;
    private final DedupIndex.Settings settings;
    /** The window's start now (micros; {@link Long#MIN_VALUE} for a window without end). */
    private final LongSupplier windowStart;
    private final SegmentMerge merges;
    /** Where the runs of segments restored without them are fetched from, or null. */
    private final RemoteRuns remote;
    /** By offset range. */
    private final List<SegmentFile> segments = new ArrayList<>();
    /** Every key up to this offset (and not trimmed) is in {@link #segments}. */
    private long sealedThrough;
    private long trimmedThrough;

    SealedSegments(Path directory, KeySource source, SegmentListener listener, DedupIndex.Settings settings,
            LongSupplier windowStart, RemoteRuns remote) {
        this.directory = directory;
        this.remote = remote;
        this.source = source;
        this.listener = listener;
        this.settings = settings;
        this.windowStart = windowStart;
        this.merges = new SegmentMerge(directory, listener, settings);
    }

    Path directory() {
        return directory;
    }

    long sealedThrough() {
        return sealedThrough;
    }

    /** An empty table for keys read from the source, which leaves out trimmed ones. */
    KeyTable newTable() {
        return new KeyTable(directory, listener, settings.recentKeys(), () -> trimmedThrough);
    }

    /** Opens and checks the segments of the directory, rebuilding missing ranges; sets {@link #sealedThrough}. */
    void load(long trimmed) throws IOException {
        trimmedThrough = trimmed;
        Files.createDirectories(directory);
        List<SegmentFile> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(SegmentFile.TEMPORARY_SUFFIX)) {
                    Files.deleteIfExists(file); // a seal or merge the last process did not finish
                } else if (name.endsWith(SegmentFile.REMOTE_SUFFIX)) {
                    openRemote(file, found);
                } else if (name.endsWith(SegmentFile.SUFFIX)) {
                    try {
                        found.add(SegmentFile.open(file));
                    } catch (IOException e) {
                        LOG.log(Level.WARNING, e.getMessage() + "; rebuilding its keys from the log");
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
        // Widest first among equal starts: a merge's output wins over inputs it did not get to delete.
        found.sort(Comparator.comparingLong(SegmentFile::afterOffset)
                .thenComparing(Comparator.comparingLong(SegmentFile::throughOffset).reversed()));
        long position = trimmed;
        for (SegmentFile segment : found) {
            if (segment.throughOffset() <= position) {
                delete(segment); // trimmed, or merged into a segment already taken
                continue;
            }
            if (segment.afterOffset() > position) {
                LOG.warning("deduplication keys of offsets " + (position + 1) + " to " + segment.afterOffset()
                        + " in " + directory + " have no segment; rebuilding them from the log");
                segments.addAll(build(position, segment.afterOffset(), windowStart.getAsLong()));
            }
            segments.add(segment);
            position = segment.throughOffset();
        }
        sealedThrough = position;
        announce();
    }

    /** Opens a segment restored without its run, if its run can be fetched; else deletes it (its range is rebuilt). */
    private void openRemote(Path file, List<SegmentFile> found) throws IOException {
        String name = file.getFileName().toString();
        String complete = name.substring(0, name.length() - SegmentFile.REMOTE_SUFFIX.length()) + SegmentFile.SUFFIX;
        if (remote == null || !remote.has(complete)) {
            Files.deleteIfExists(file); // restored for an earlier run of this process: its copy is unknown now
            return;
        }
        try {
            found.add(SegmentFile.openRemote(file, remote));
        } catch (IOException e) {
            LOG.log(Level.WARNING, e.getMessage() + "; rebuilding its keys from the log");
            Files.deleteIfExists(file);
        }
    }

    /** The segments restored without their runs (whose runs are fetched when read). */
    List<SegmentFile> remote() {
        return segments.stream().filter(segment -> segment.remoteRun() != null).toList();
    }

    /** Tells the listener which segments are in use now. */
    private void announce() {
        listener.inUse(segments.stream().map(SegmentFile::file).toList(), sealedThrough);
    }

    /** Segments of every key in {@code (after, through]} read from the source, each of at most a recent table. */
    List<SegmentFile> build(long after, long through, long notBefore) throws IOException {
        List<SegmentFile> built = new ArrayList<>();
        KeyTable collected = newTable();
        long[] chunkAfter = {after};
        try {
            source.scan(after, notBefore, (lastOffset, newest, keys) -> {
                collected.addGroup(keys, chunkAfter[0], through, newest);
                if (lastOffset >= through) {
                    return false;
                }
                if (collected.count >= settings.recentKeys()) {
                    built.add(collected.write(chunkAfter[0], lastOffset));
                    chunkAfter[0] = lastOffset;
                    collected.clear();
                }
                return true;
            });
            built.add(collected.write(chunkAfter[0], through));
        } catch (IOException | RuntimeException e) {
            for (SegmentFile segment : built) {
                delete(segment);
            }
            throw e;
        }
        return built;
    }

    /** Puts a segment sealed at start-up in use: it holds every key through {@code through}. */
    void append(SegmentFile segment, long through) {
        segments.add(segment);
        sealedThrough = through;
        announce();
    }

    /** Puts the segments of a background seal through {@code through} in use, deleting those trimmed meanwhile. */
    void addSealed(List<SegmentFile> built, long through) {
        for (SegmentFile segment : built) {
            if (segment.throughOffset() <= trimmedThrough) {
                delete(segment);
            } else {
                segments.add(segment);
            }
        }
        sealedThrough = through;
        announce();
    }

    /**
     * Whether a segment holding keys accepted after {@code notBeforeMicros} may hold this hash, by its filter alone
     * (no read of its run).
     */
    boolean mayHold(long hash, long notBeforeMicros) {
        for (SegmentFile segment : segments) {
            if (segment.newestIngestedAtMicros() > notBeforeMicros && segment.mayHold(hash)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Calls {@code candidate} with the offset of every event in a segment that may have carried a key of this hash
     * accepted after {@code notBeforeMicros}.
     */
    void candidates(long hash, long notBeforeMicros, LongConsumer candidate) {
        for (int i = 0; i < segments.size(); i++) {
            SegmentFile segment = segments.get(i);
            if (segment.newestIngestedAtMicros() <= notBeforeMicros) {
                continue; // every key in it is older than the window
            }
            try {
                segment.candidates(hash, candidate);
            } catch (IOException e) {
                replaceUnreadable(i, e);
                i--; // look the hash up again in what replaced it
            }
        }
    }

    /**
     * The run bytes of segments restored without their runs that a lookup of this hash would fetch, as one fetch any
     * thread may run; null when the lookup would read the local disk only.
     */
    RunFetch missingRuns(long hash, long notBeforeMicros) {
        List<RemoteRun> runs = null;
        List<long[]> ranges = null;
        for (SegmentFile segment : segments) {
            if (segment.remoteRun() == null || segment.remoteRun().missingBytes() == 0
                    || segment.newestIngestedAtMicros() <= notBeforeMicros) {
                continue; // its whole run is on disk, or every key in it is older than the window
            }
            long[] range = segment.missingRun(hash);
            if (range != null) {
                if (runs == null) {
                    runs = new ArrayList<>(1);
                    ranges = new ArrayList<>(1);
                }
                runs.add(segment.remoteRun());
                ranges.add(range);
            }
        }
        if (runs == null) {
            return null;
        }
        List<RemoteRun> fetched = runs;
        List<long[]> wanted = ranges;
        return () -> {
            for (int i = 0; i < fetched.size(); i++) {
                fetched.get(i).ensure(wanted.get(i)[0], wanted.get(i)[1]);
            }
        };
    }

    /**
     * Rebuilds segment {@code index}, which failed a read, from the source, here on the writer thread: until it is
     * rebuilt no key of its range can be ruled out.
     */
    private void replaceUnreadable(int index, IOException failure) {
        SegmentFile broken = segments.get(index);
        LOG.log(Level.SEVERE, failure.getMessage() + "; rebuilding its keys from the log");
        try {
            List<SegmentFile> rebuilt = build(broken.afterOffset(), broken.throughOffset(), windowStart.getAsLong());
            segments.remove(index);
            delete(broken);
            segments.addAll(index, rebuilt);
            announce();
        } catch (IOException e) {
            throw new IllegalStateException("cannot rebuild the deduplication segment " + broken.file() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Forgets the keys at or below {@code throughOffset} (trimmed): deletes the segments it empties. */
    void removeThrough(long throughOffset) {
        trimmedThrough = Math.max(trimmedThrough, throughOffset);
        boolean removed = segments.removeIf(segment -> {
            if (segment.throughOffset() <= throughOffset) {
                delete(segment);
                return true;
            }
            return false;
        });
        if (removed) {
            announce();
        }
    }

    /**
     * The oldest {@link DedupIndex.Settings#fanIn()} neighbouring segments of one size class, if any: in steady state
     * those are the newest (seals arrive one by one), after a start that sealed a backlog they are anywhere; null when
     * none are due.
     */
    List<SegmentFile> dueMerge() {
        return merges.due(segments);
    }

    /** The merged segment of {@code inputs}, or null when {@code cancelled} said so first (nothing is left behind). */
    SegmentFile merge(List<SegmentFile> inputs, long keys, BooleanSupplier cancelled) throws IOException {
        return merges.merge(inputs, keys, cancelled);
    }

    /** Runs every merge that is due, one after another on the calling thread, until none is or it is cancelled. */
    void mergeAllDue(BooleanSupplier cancelled) throws IOException {
        List<SegmentFile> inputs;
        while (!cancelled.getAsBoolean() && (inputs = dueMerge()) != null) {
            long keys = inputs.stream().mapToLong(SegmentFile::keys).sum();
            SegmentFile merged = merge(inputs, keys, cancelled);
            if (merged == null) {
                return;
            }
            replace(inputs, merged);
        }
    }

    /** Puts {@code merged} in use in place of its {@code inputs}, if they are still there; else deletes it. */
    void replace(List<SegmentFile> inputs, SegmentFile merged) {
        int at = segments.indexOf(inputs.get(0));
        boolean stillThere = at >= 0 && at + inputs.size() <= segments.size();
        for (int i = 0; stillThere && i < inputs.size(); i++) {
            stillThere = segments.get(at + i) == inputs.get(i);
        }
        if (!stillThere) {
            // A trim or a rebuild changed the inputs meanwhile: the merge is redone from what is there.
            delete(merged);
            return;
        }
        segments.subList(at, at + inputs.size()).clear();
        segments.add(at, merged);
        for (SegmentFile input : inputs) {
            delete(input);
        }
        announce();
    }

    void delete(SegmentFile segment) {
        closeQuietly(segment);
        try {
            listener.deleting(segment.file());
            Files.deleteIfExists(segment.file());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot delete the deduplication segment " + segment.file()
                    + "; the next start deletes it", e);
        }
    }

    static void closeQuietly(SegmentFile segment) {
        try {
            segment.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing " + segment.file(), e);
        }
    }

    /** How many keys the segments hold. */
    long keys() {
        long keys = 0;
        for (SegmentFile segment : segments) {
            keys += segment.keys();
        }
        return keys;
    }

    /** Bytes of the segments' filters, fences and checksums: memory-mapped, resident while lookups touch them. */
    long mappedBytes() {
        return segments.stream().mapToLong(SegmentFile::mappedBytes).sum();
    }

    /** Bytes of the segment files on disk. */
    long fileBytes() {
        return segments.stream().mapToLong(SegmentFile::fileBytes).sum();
    }

    int count() {
        return segments.size();
    }

    /** Closes the segments; their files stay for the next start. */
    void close() {
        for (SegmentFile segment : segments) {
            closeQuietly(segment);
        }
    }
}
