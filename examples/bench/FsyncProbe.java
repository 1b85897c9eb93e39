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
 * ({@code FileChannel.force(true)}), and the distribution of their times. Run as a source file (one-client.sh does):
 * {@code java examples/bench/FsyncProbe.java DIR [WRITES]}.
 */
public final class FsyncProbe {

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]).resolve("fsync-probe");
        int writes = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        long size = 4L << 20;
        byte[] bytes = new byte[8192];
        ThreadLocalRandom.current().nextBytes(bytes);
        ByteBuffer block = ByteBuffer.wrap(bytes);
        long[] nanos = new long[writes];
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), size - 1);
            channel.force(true);
            for (int i = 0; i < writes; i++) {
                block.clear();
                long started = System.nanoTime();
                channel.write(block, (i * 8192L) % size);
                channel.force(true);
                nanos[i] = System.nanoTime() - started;
            }
        } finally {
            Files.deleteIfExists(file);
        }
        Arrays.sort(nanos);
        long over1 = Arrays.stream(nanos).filter(n -> n > 1_000_000).count();
        System.out.printf("fsync probe: %d writes of 8 KiB + fsync: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms,"
                + " max %.3f ms; %.2f %% over 1 ms%n", writes, ms(nanos, 0.50), ms(nanos, 0.99), ms(nanos, 0.999),
                nanos[writes - 1] / 1e6, 100.0 * over1 / writes);
    }

    private static double ms(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))] / 1e6;
    }
}
