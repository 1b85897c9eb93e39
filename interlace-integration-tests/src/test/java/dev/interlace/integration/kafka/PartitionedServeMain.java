package dev.interlace.integration.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.interlace.log.kafka.UnfencedKafkaLogModule;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} with a partitioned {@code orders}: {@code PartitionedServeMain PARTITIONS fenced|unfenced serve
 * FLAGS...} runs the server as {@code interlace serve --log kafka FLAGS...} does, except that it serves one stream,
 * {@code orders}, declared with {@code PARTITIONS} partitions (as {@code @Stream(..., partitions = N)} would), and no
 * models; with {@code unfenced} its sequencers fence nobody ({@link UnfencedKafkaLogModule}, negative controls only).
 * A test main: no flag of the shipped jar selects this.
 *
 * <p>Only {@code orders} (the class path's models read other streams): the tests count each node's share of its
 * partitions, which the sequencer group spreads evenly over the nodes whatever other streams they hold.
 */
public final class PartitionedServeMain {

    private PartitionedServeMain() {}

    public static void main(String[] args) throws InterruptedException {
        int partitions = Integer.parseInt(args[0]);
        boolean unfenced = args[1].equals("unfenced");
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 3, args.length), Map.of()).config();
        StreamCatalog catalog = StreamCatalog.of(StreamCatalog.load(PartitionedServeMain.class.getClassLoader())
                .streams().stream().filter(stream -> stream.name().equals("orders"))
                .map(stream -> partitioned(stream, partitions)).toList());
        Interlace.Builder builder = Interlace.builder().config(config).catalog(catalog).override(new AbstractModule() {
            @Provides
            List<ModelDefinition> definitions() {
                return List.of(); // the class path's models read other streams
            }
        });
        if (unfenced) {
            builder.override(new UnfencedKafkaLogModule(config));
        }
        Interlace server = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "partitioned-serve-shutdown"));
        System.out.println(ServeNode.READY + server.uri());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static StreamDescriptor partitioned(StreamDescriptor stream, int partitions) {
        return new StreamDescriptor(stream.name(), stream.columns(), stream.idempotencyKey(), stream.retention(),
                stream.retentionMillis(), stream.onSchemaDrift(), stream.schemaVersion(), stream.declaredBy(),
                stream.decoder(), partitions, stream.partitionKey(), 0);
    }
}
