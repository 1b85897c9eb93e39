package dev.interlace.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * How the extension fails, seen through the real Jupiter engine: the nested classes are meant to fail and run only
 * under {@link EngineTestKit} (Surefire skips nested classes, and they are disabled when it selects them anyway).
 */
class ExtensionFailuresTest {

    @Test
    void aServerAskedForInBeforeAllUnderPerTestIsolationIsRefusedSayingHowToGetOne() {
        EngineExecutionResults results = run(PerTestWithBeforeAll.class);

        Throwable failure = results.containerEvents().failed().stream().findFirst()
                .flatMap(event -> event.getPayload(org.junit.platform.engine.TestExecutionResult.class))
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).orElseThrow();
        assertThat(failure).hasMessageContaining("no Interlace server runs for beforeAll: with PER_TEST a server"
                + " starts before each test; a @BeforeAll method gets one with isolation = Isolation.PER_CLASS");
    }

    @Test
    void aFailedTestKeepsItsDataDirectoryAndAPassingOneDoesNot() throws IOException {
        FailingAndPassing.DIRECTORIES.clear();

        EngineExecutionResults results = run(FailingAndPassing.class);

        assertThat(results.testEvents().failed().count()).isEqualTo(1);
        assertThat(results.testEvents().succeeded().count()).isEqualTo(1);
        Path failed = FailingAndPassing.DIRECTORIES.get(0);
        Path passed = FailingAndPassing.DIRECTORIES.get(1);
        assertThat(failed.resolve("log.sqlite")).exists();
        assertThat(passed).doesNotExist();
        TestInterlace.deleteRecursively(failed);
    }

    private static EngineExecutionResults run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter").configurationParameter(RUN_BY_TEST_KIT, "true")
                .selectors(selectClass(testClass)).execute();
    }

    private static final String RUN_BY_TEST_KIT = "interlace.test.runByEngineTestKit";

    static boolean runByEngineTestKit(ExtensionContext context) {
        return context.getConfigurationParameter(RUN_BY_TEST_KIT).isPresent();
    }

    @InterlaceTest
    @EnabledIf("dev.interlace.test.ExtensionFailuresTest#runByEngineTestKit")
    static class PerTestWithBeforeAll {

        @BeforeAll
        static void beforeAll(TestInterlace interlace) {}

        @Test
        void test() {}
    }

    @InterlaceTest
    @EnabledIf("dev.interlace.test.ExtensionFailuresTest#runByEngineTestKit")
    @org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.MethodName.class)
    static class FailingAndPassing {

        static final List<Path> DIRECTORIES = new CopyOnWriteArrayList<>();

        @Test
        void a_fails(TestInterlace interlace) {
            DIRECTORIES.add(interlace.dataDirectory());
            interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}");
            assertThat(interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 1}").statuses())
                    .containsExactly("accepted");
        }

        @Test
        void b_passes(TestInterlace interlace) {
            DIRECTORIES.add(interlace.dataDirectory());
        }
    }
}
