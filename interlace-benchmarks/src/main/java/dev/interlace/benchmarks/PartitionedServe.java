package dev.interlace.benchmarks;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} with the example stream {@code orders} declared with N partitions, as {@code @Stream(..., partitions =
 * N)} would, and no other stream or model: {@code PartitionedServe N serve FLAGS...} (kafka-publish.sh's scale-out
 * measure, k4, runs the one-partition baseline through it too, so that both serve the same). A benchmark main: no flag
 * of the shipped jar selects this.
 */
public final class PartitionedServe {

    private PartitionedServe() {}

    public static void main(String[] args) throws InterruptedException {
        int partitions = Integer.parseInt(args[0]);
        InterlaceConfig config = ConfigLoader.load(Arrays.copyOfRange(args, 2, args.length), System.getenv())
                .config();
        StreamCatalog catalog = StreamCatalog.of(StreamCatalog.load(PartitionedServe.class.getClassLoader())
                .streams().stream().filter(stream -> stream.name().equals("orders"))
                .map(stream -> new StreamDescriptor(stream.name(), stream.columns(), stream.idempotencyKey(),
                        stream.retention(), stream.retentionMillis(), stream.onSchemaDrift(), stream.schemaVersion(),
                        stream.declaredBy(), stream.decoder(), partitions, stream.partitionKey(), 0))
                .toList());
        Interlace server = Interlace.builder().config(config).catalog(catalog).override(new AbstractModule() {
            @Provides
            List<ModelDefinition> definitions() {
                return List.of(); // the example models read other streams too
            }
        }).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "partitioned-serve-shutdown"));
        System.out.println("listening on " + server.uri());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
