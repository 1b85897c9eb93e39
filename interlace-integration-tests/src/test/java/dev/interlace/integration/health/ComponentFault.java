package dev.interlace.integration.health;

import dev.interlace.integration.crash.ChildFault;
import dev.interlace.runtime.dedup.SegmentListener;
import dev.interlace.runtime.flush.FlushListener;
import dev.interlace.runtime.log.CommitListener;
import dev.interlace.runtime.model.ModelListener;
import dev.interlace.runtime.warehouse.Warehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Where a component-failure child throws once armed: an error that is not the virtual machine's (an
 * {@link AssertionError}, as a bug would throw) in the flusher, the log's writer or a model run; an
 * {@link OutOfMemoryError} in a model run; an I/O failure while the deduplication index seals keys.
 */
enum ComponentFault implements ChildFault {
    FLUSHER_ERROR,
    WRITER_ERROR,
    MODEL_ERROR,
    MODEL_OUT_OF_MEMORY,
    SEAL_FAILURE;

    /** Whether the fault is thrown now; switched by the parent through the child's standard input. */
    private static volatile boolean armed;

    static void arm(boolean value) {
        armed = value;
    }

    static final String MESSAGE = "injected component fault";

    FlushListener flushListener() {
        return new FlushListener() {
            @Override
            public void beforeCommit(Warehouse.Target target, long newWatermark, int rows) {
                if (armed && ComponentFault.this == FLUSHER_ERROR) {
                    throw new AssertionError(MESSAGE + " in the flusher");
                }
            }
        };
    }

    CommitListener commitListener() {
        return new CommitListener() {
            @Override
            public void beforeCommit(int requests, int entries) {
                if (armed && ComponentFault.this == WRITER_ERROR) {
                    throw new AssertionError(MESSAGE + " in the log writer");
                }
            }
        };
    }

    ModelListener modelListener() {
        return new ModelListener() {
            @Override
            public void beforeCommit(String model) {
                if (armed && ComponentFault.this == MODEL_ERROR) {
                    throw new AssertionError(MESSAGE + " in model " + model);
                }
                if (armed && ComponentFault.this == MODEL_OUT_OF_MEMORY) {
                    throw new OutOfMemoryError(MESSAGE + " in model " + model);
                }
            }
        };
    }

    SegmentListener segmentListener() {
        return new SegmentListener() {
            @Override
            public void writing(Path temporary) {
                if (armed && ComponentFault.this == SEAL_FAILURE) {
                    throw new UncheckedIOException(new IOException(MESSAGE + " while sealing " + temporary));
                }
            }
        };
    }
}
