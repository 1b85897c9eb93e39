package dev.interlace.log.kafka;

import java.util.ArrayList;
import java.util.List;

/**
 * The nodes a test opens one after the other, all closed when it ends however it ends: a test that stops a node
 * midway closes it itself (closing a log twice does nothing).
 */
final class Nodes implements AutoCloseable {

    private final List<KafkaStreamLog> opened = new ArrayList<>();

    /** {@code node}, closed with the others. */
    KafkaStreamLog add(KafkaStreamLog node) {
        opened.add(node);
        return node;
    }

    @Override
    public void close() {
        opened.forEach(KafkaStreamLog::close);
    }
}
