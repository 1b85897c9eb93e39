package dev.interlace.integration.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.log.kafka.KafkaLogSettings;
import dev.interlace.log.kafka.KafkaStreamLog;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.flush.FlushPositions;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.health.ComponentHealth;
import dev.interlace.runtime.ops.FatalErrors;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} with a sequencer that dies: {@code SequencerFaultServeMain serve FLAGS...} runs the server as
 * {@code interlace serve --log kafka FLAGS...} does, except that the first commit of stream {@value #DYING_STREAM}
 * throws an {@link AssertionError} (as a bug would) on that stream's sequencer thread, right after it acknowledged
 * it (once per process: the thread is gone after); and a process whose component failed exits after
 * {@value #EXIT_AFTER_MS} ms, so that a test sees its health first. A test main: no flag of the shipped jar reaches
 * the fault.
 */
public final class SequencerFaultServeMain {

    static final String DYING_STREAM = "clicks";
    static final long EXIT_AFTER_MS = 30_000;
    static final String MESSAGE = "injected sequencer fault";

    private SequencerFaultServeMain() {}

    public static void main(String[] args) throws InterruptedException {
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 1, args.length), Map.of()).config();
        FatalErrors.installDefaultHandler(); // as the serve command does
        Interlace server = Interlace.builder().config(config).override(new Fault(config)).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sequencer-fault-shutdown"));
        System.out.println(ServeNode.READY + server.uri());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** The Kafka log with an append listener that throws on the dying stream; the component health's grace. */
    private static final class Fault extends AbstractModule {
        private final KafkaLogSettings kafka;

        Fault(InterlaceConfig config) {
            this.kafka = KafkaLogSettings.from(config);
        }

        @Provides
        @Singleton
        ComponentHealth componentHealth(dev.interlace.runtime.records.SystemRecords records, Clock clock) {
            return new ComponentHealth(records, clock, java.time.Duration.ofMillis(EXIT_AFTER_MS));
        }

        @Provides
        @Singleton
        KafkaStreamLog kafkaStreamLog(LogSettings settings, FlushPositions materialised, Clock clock,
                ComponentHealth components) {
            KafkaStreamLog log = new KafkaStreamLog(kafka, settings, materialised, clock, components);
            log.addAppendListener(stream -> {
                if (stream.equals(DYING_STREAM)
                        && Thread.currentThread().getName().startsWith("interlace-kafka-sequencer-")) {
                    throw new AssertionError(MESSAGE + " on stream " + stream);
                }
            });
            return log;
        }
    }
}
