package dev.interlace.runtime.auth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;

/**
 * Files only their owner may read or write (mode 0600 where the file system has POSIX permissions), replaced
 * atomically and durably: what holds secrets' hashes and is shared between the server and the CLI.
 */
final class OwnerOnlyFiles {

    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final SecureRandom RANDOM = new SecureRandom();

    private OwnerOnlyFiles() {}

    /**
     * Replaces {@code file} with {@code content} durably: writes a temporary file beside it (owner-only), forces it to
     * disk, renames it over {@code file} and forces the directory, so that a reader sees the old bytes or the new ones.
     */
    static void replace(Path file, byte[] content) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + "." + Long.toHexString(RANDOM.nextLong()) + ".tmp");
        try {
            try (FileChannel channel = open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        forceDirectory(file);
    }

    /** Makes the rename durable where the platform allows opening a directory (Linux, macOS). */
    private static void forceDirectory(Path file) {
        try (FileChannel directory = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not possible on this platform (e.g. Windows); the rename itself is still atomic.
        }
    }

    /** Opens (creating it if asked) a file readable and writable only by its owner where permissions exist. */
    static FileChannel open(Path path, OpenOption... options) throws IOException {
        Set<OpenOption> optionSet = Set.of(options);
        if (path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            FileAttribute<Set<PosixFilePermission>> ownerOnly = PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE);
            FileChannel channel = FileChannel.open(path, optionSet, ownerOnly);
            // The umask can only remove bits, but a file created earlier by hand may be wider: narrow it.
            if (!Files.getPosixFilePermissions(path).equals(OWNER_READ_WRITE)) {
                Files.setPosixFilePermissions(path, OWNER_READ_WRITE);
            }
            return channel;
        }
        return FileChannel.open(path, optionSet);
    }

    /** The file's bytes, or null when there is no file. */
    static byte[] readIfExists(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
