package dev.interlace.runtime.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@link DiskSpace} of the file system holding the data directory (one {@code statvfs} per call). */
public final class DataDirectoryDiskSpace implements DiskSpace {

    private final FileStore store;

    public DataDirectoryDiskSpace(Path dataDirectory) {
        try {
            this.store = Files.getFileStore(dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect the file system of " + dataDirectory, e);
        }
    }

    @Override
    public long usableBytes() {
        try {
            return store.getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }
}
