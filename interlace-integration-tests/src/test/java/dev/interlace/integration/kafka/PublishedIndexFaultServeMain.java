package dev.interlace.integration.kafka;

import dev.interlace.integration.crash.ChildFault;
import dev.interlace.log.kafka.IndexFaultKafkaLogModule;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.dedup.DedupIndex;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} for the published index's crash tests: {@code PublishedIndexFaultServeMain FAULT TRIGGER serve
 * FLAGS...} runs the server as {@code interlace serve --log kafka FLAGS...} does, except that its deduplication
 * indexes seal a segment every {@value #RECENT_KEYS} keys and merge them two at a time (so that segments are
 * published, replaced and tombstoned after a few thousand keys), and that it halts at the step of a publication
 * {@code FAULT} names ({@link HaltingPublication}). A test main: no flag of the shipped jar reaches the fault.
 */
public final class PublishedIndexFaultServeMain {

    static final int RECENT_KEYS = 2_000;

    private PublishedIndexFaultServeMain() {}

    public static void main(String[] args) throws InterruptedException {
        PublicationFault fault = ChildFault.parse(PublicationFault.class, args[0]);
        HaltingPublication halting = new HaltingPublication(fault, Integer.parseInt(args[1]));
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 3, args.length), Map.of()).config();
        Interlace server = Interlace.builder().config(config).override(new IndexFaultKafkaLogModule(config,
                new DedupIndex.Settings(RECENT_KEYS, 2), halting, halting)).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "published-index-fault-shutdown"));
        System.out.println(ServeNode.READY + server.uri());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
