package dev.interlace.integration.kafka;

import dev.interlace.log.kafka.UnfencedKafkaLogModule;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} for negative controls only: {@code UnfencedServeMain serve FLAGS...} runs the server as
 * {@code interlace serve --log kafka FLAGS...} does, except that its sequencers' producers are not transactional, so
 * nothing fences a holder paused past its ownership ({@link UnfencedKafkaLogModule}). A test main: no flag of the
 * shipped jar selects this.
 */
public final class UnfencedServeMain {

    private UnfencedServeMain() {}

    public static void main(String[] args) throws InterruptedException {
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 1, args.length), Map.of()).config();
        Interlace server = Interlace.builder().config(config).override(new UnfencedKafkaLogModule(config)).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "unfenced-serve-shutdown"));
        System.out.println(ServeNode.READY + server.uri());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
