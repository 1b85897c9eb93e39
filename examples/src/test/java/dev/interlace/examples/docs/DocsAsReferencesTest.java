package dev.interlace.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The performance and decisions pages stay references: later work replaces their rows and entries instead of
 * appending sections, so each keeps within its length (history stays in git).
 */
class DocsAsReferencesTest {

    @Test
    void thePerformancePageKeepsWithin200LinesAndTheDecisionsWithin300() throws IOException {
        Path docs = ProjectRoot.find().resolve("docs");
        assertThat(Files.readAllLines(docs.resolve("performance.md"))).as("docs/performance.md")
                .hasSizeLessThanOrEqualTo(200);
        assertThat(Files.readAllLines(docs.resolve("decisions.md"))).as("docs/decisions.md")
                .hasSizeLessThanOrEqualTo(300);
    }
}
