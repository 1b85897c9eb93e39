package dev.interlace.runtime.flush;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The id of the warehouse replica a data directory holds ({@code --role warehouse} on the Kafka log), kept in its
 * {@value #FILE} file: made once, from the node's advertised host and port and a random suffix, when the directory
 * first holds a warehouse. The id goes with the DuckDB, not with the node's URL: a node restarted on the same directory
 * is the same replica and goes on from its watermarks, and a node whose directory was emptied is a new replica that
 * materialises the log from its start. A copy of a data directory is the same replica: delete the copy's file to make
 * it another.
 */
final class ReplicaIds {

    static final String FILE = "warehouse.replica";

    private ReplicaIds() {}

    static String of(Path dataDirectory, String advertisedUrl) {
        Path file = dataDirectory.resolve(FILE);
        try {
            if (Files.exists(file)) {
                String id = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!FlushLease.REPLICA.matcher(id).matches()) {
                    throw new IllegalStateException(file + " holds no replica id (1-100 characters of"
                            + " [A-Za-z0-9._:-]): fix or delete it (then this directory's warehouse is a new replica)");
                }
                return id;
            }
            URI uri = URI.create(advertisedUrl);
            byte[] random = new byte[3];
            new SecureRandom().nextBytes(random);
            String id = (uri.getHost() + "-" + uri.getPort()).replaceAll("[^A-Za-z0-9._:-]", "_") + "."
                    + HexFormat.of().formatHex(random);
            Files.createDirectories(dataDirectory);
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file, e);
        }
    }
}
