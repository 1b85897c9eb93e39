package dev.interlace.log.kafka;

import dev.interlace.runtime.stream.StreamDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a test of Kafka logs on the shared broker starts from: a directory for its nodes' data, a topic prefix of its
 * own (named after the test class) and the {@code orders} stream, declared by the test class.
 */
abstract class SharedBrokerTest {

    @TempDir
    Path directory;

    /** A topic prefix no other test (or run) uses. */
    final String prefix = KeyedOrders.prefix(getClass().getSimpleName());

    /** {@code orders}, keyed by {@code id} ({@link KeyedOrders#declaredBy}). */
    final StreamDescriptor orders = KeyedOrders.declaredBy(getClass());
}
