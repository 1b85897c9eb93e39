package dev.interlace.runtime.ops;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on the data directory ({@code <data-dir>/lock}), so two servers never write the same log. The
 * operating system releases it when the process dies, even by {@code kill -9}.
 */
public final class DataDirectoryLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock.
     *
     * @throws LockedException when another process (or this one) holds it
     */
    public static DataDirectoryLock acquire(Path dataDirectory) throws IOException {
        Files.createDirectories(dataDirectory);
        Path file = dataDirectory.resolve("lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new LockedException("the data directory " + dataDirectory.toAbsolutePath() + " is in use by another"
                    + " interlace server (" + file + " is locked); stop it or choose another --data-dir");
        }
        channel.truncate(0);
        channel.write(java.nio.ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)));
        return new DataDirectoryLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }

    /** The data directory is locked by someone else. */
    public static final class LockedException extends IOException {
        private static final long serialVersionUID = 1L;

        LockedException(String message) {
            super(message);
        }
    }
}
