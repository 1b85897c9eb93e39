package dev.interlace.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The disk alone, as a durable publish uses it: writes of 8 KiB in turn over a 4 MiB file, each followed by an fsync
 * ({@code FileChannel.force(true)}), and the distribution of their times. {@link PublishBenchmark} prints it before
 * its scenarios; {@code interlace-benchmarks/scripts/one-client.sh} runs it on its own:
 * {@code java -cp interlace-benchmarks.jar dev.interlace.benchmarks.FsyncProbe DIR [WRITES]}.
 */
public final class FsyncProbe {

    private static final int BLOCK = 8192;
    private static final long FILE_BYTES = 4L << 20;

    private FsyncProbe() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: FsyncProbe DIR [WRITES]   (WRITES: 20000 by default)");
            System.exit(2);
        }
        System.out.println(measure(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 20_000));
    }

    /** Times {@code writes} writes with their fsync on a file in {@code dir} (removed afterwards). */
    static String measure(Path dir, int writes) throws IOException {
        Path file = dir.resolve("fsync-probe");
        byte[] bytes = new byte[BLOCK];
        ThreadLocalRandom.current().nextBytes(bytes);
        ByteBuffer block = ByteBuffer.wrap(bytes);
        long[] nanos = new long[writes];
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), FILE_BYTES - 1);
            channel.force(true);
            for (int i = 0; i < writes; i++) {
                block.clear();
                long started = System.nanoTime();
                channel.write(block, (i * (long) BLOCK) % FILE_BYTES);
                channel.force(true);
                nanos[i] = System.nanoTime() - started;
            }
        } finally {
            Files.deleteIfExists(file);
        }
        Arrays.sort(nanos);
        long overOneMilli = Arrays.stream(nanos).filter(n -> n > 1_000_000).count();
        return String.format("fsync probe: %d writes of 8 KiB + fsync: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms,"
                + " max %.3f ms; %.2f %% over 1 ms", writes, ms(nanos, 0.50), ms(nanos, 0.99), ms(nanos, 0.999),
                nanos[writes - 1] / 1e6, 100.0 * overOneMilli / writes);
    }

    private static double ms(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))] / 1e6;
    }
}
