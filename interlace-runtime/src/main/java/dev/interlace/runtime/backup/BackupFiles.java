package dev.interlace.runtime.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Copying, hashing and forcing the files of a backup. */
final class BackupFiles {

    private BackupFiles() {}

    /** The SHA-256 (hex) of a file's bytes. */
    static String sha256(Path file) throws IOException {
        return copy(file, null);
    }

    /**
     * Copies {@code source} to {@code target} (a new file, forced to disk) when the target is not null, and returns
     * the SHA-256 (hex) of the bytes read.
     */
    static String copy(Path source, Path target) throws IOException {
        MessageDigest digest = newDigest();
        try (InputStream in = new DigestInputStream(Files.newInputStream(source), digest)) {
            if (target == null) {
                in.transferTo(OutputStream.nullOutputStream());
            } else {
                try (FileChannel channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    in.transferTo(Channels.newOutputStream(channel));
                    channel.force(true);
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Forces a file's bytes to disk. */
    static void force(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Writes a new file and forces it to disk. */
    static void writeDurably(Path file, byte[] content) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(java.nio.ByteBuffer.wrap(content));
            channel.force(true);
        }
    }

    /** Forces a directory's entries to disk (where the platform allows opening a directory). */
    static void forceDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Not possible on every platform (Windows); the files themselves were forced.
        }
    }

    /** Makes a file readable and writable by its owner only (the key file), where the file system has modes. */
    static void ownerOnly(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: its own access rules apply.
        }
    }

    /** Whether a path is absent, or an empty directory. */
    static boolean absentOrEmpty(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return true;
        }
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (var entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        }
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
