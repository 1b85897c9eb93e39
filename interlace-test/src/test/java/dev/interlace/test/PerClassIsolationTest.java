package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-class isolation, registered in code: one server for the class, injected into {@code @BeforeAll} too; what it
 * published every test sees.
 */
class PerClassIsolationTest {

    @RegisterExtension
    static final InterlaceExtension INTERLACE = InterlaceExtension.perClass().flags("--max-pending", "1000");

    static final List<Path> DIRECTORIES = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void publishOnce(TestInterlace interlace) {
        interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}");
        interlace.awaitMaterialised();
    }

    /** Twice, as two tests of the class. */
    @RepeatedTest(2)
    void sharedOrderIsADuplicate(TestInterlace interlace) {
        DIRECTORIES.add(interlace.dataDirectory());
        assertThat(interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}").statuses())
                .containsExactly("duplicate");
    }

    @AfterAll
    static void bothTestsSharedOneDirectory() {
        assertThat(DIRECTORIES).hasSize(2);
        assertThat(DIRECTORIES.get(0)).isEqualTo(DIRECTORIES.get(1));
    }
}
