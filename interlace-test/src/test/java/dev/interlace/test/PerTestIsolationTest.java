package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;

/** Per-test isolation (the default): each test publishes the same order, and in its own data directory it is new. */
@InterlaceTest
class PerTestIsolationTest {

    static final List<Path> DIRECTORIES = new CopyOnWriteArrayList<>();

    /** Twice, as two tests of the class. */
    @RepeatedTest(2)
    void publishOrderOneAndSeeItAlone(TestInterlace interlace) {
        DIRECTORIES.add(interlace.dataDirectory());
        assertThat(interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}").statuses())
                .containsExactly("accepted");
        interlace.awaitMaterialised();
        assertThat(interlace.sql("SELECT count(*) AS n FROM streams.orders"))
                .containsExactly(Map.of("n", 1L));
    }

    @AfterAll
    static void eachTestHadItsOwnDirectoryAndNoneIsLeft() {
        assertThat(DIRECTORIES).hasSize(2).doesNotHaveDuplicates();
        assertThat(DIRECTORIES).noneMatch(Files::exists);
    }
}
