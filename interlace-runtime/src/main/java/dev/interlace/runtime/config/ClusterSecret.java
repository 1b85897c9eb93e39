package dev.interlace.runtime.config;

import dev.interlace.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The secret every node of a cluster shares ({@code --cluster-secret-file}): the key of the HMAC that proves a
 * forwarded request was sent by a member of the cluster. Read like the API key file is guarded: a file another user
 * may read or write is refused, and so is a secret too short to resist guessing.
 */
public final class ClusterSecret {

    /** The shortest secret accepted: 32 bytes, as many as an HMAC-SHA256 key is long. */
    public static final int MIN_BYTES = 32;

    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private final byte[] bytes;

    private ClusterSecret(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A secret from bytes held in memory (tests, tools); at least {@link #MIN_BYTES} long. */
    public static ClusterSecret of(byte[] bytes) {
        if (bytes.length < MIN_BYTES) {
            throw new IllegalArgumentException("a cluster secret needs at least " + MIN_BYTES + " bytes");
        }
        return new ClusterSecret(bytes.clone());
    }

    /**
     * The secret in {@code file}: its bytes without the line breaks and spaces at their end (so that {@code echo} and
     * editors may add one).
     *
     * @throws ConfigException naming the file when it cannot be read, is open to other users, or is too short
     */
    public static ClusterSecret read(Path file) {
        try {
            if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Set<PosixFilePermission> open = EnumSet.copyOf(Files.getPosixFilePermissions(file));
                open.retainAll(OTHERS);
                if (!open.isEmpty()) {
                    throw new ConfigException("the cluster secret file " + file + " may be read or written by other"
                            + " users (" + PosixFilePermissions.toString(Files.getPosixFilePermissions(file))
                            + "); make it owner-only: chmod 600 " + file);
                }
            }
            byte[] content = Files.readAllBytes(file);
            int length = content.length;
            while (length > 0 && Character.isWhitespace(content[length - 1])) {
                length--;
            }
            if (length < MIN_BYTES) {
                throw new ConfigException("the cluster secret file " + file + " holds " + length + " bytes; a cluster"
                        + " secret needs at least " + MIN_BYTES + " (e.g. head -c 48 /dev/urandom | base64 > " + file
                        + ", then copy the file to every node)");
            }
            return new ClusterSecret(Arrays.copyOf(content, length));
        } catch (IOException e) {
            throw new ConfigException("cannot read the cluster secret file " + file + ": " + e);
        }
    }

    /** The secret's bytes (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public String toString() {
        return "ClusterSecret[" + bytes.length + " bytes]";
    }
}
