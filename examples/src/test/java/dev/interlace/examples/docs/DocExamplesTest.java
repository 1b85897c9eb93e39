package dev.interlace.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which lines of a Markdown file the docs check runs, and how its markers change what it expects. */
class DocExamplesTest {

    @TempDir
    Path directory;

    private List<DocExamples.Example> read(String... lines) throws Exception {
        Path file = directory.resolve("guide.md");
        Files.write(file, List.of(lines));
        return DocExamples.read(file).examples();
    }

    @Test
    void shellBlocksAreCommandsAndOtherBlocksOnlyTheirPromptedLines() throws Exception {
        List<DocExamples.Example> examples = read(
                "```sh",
                "# a comment",
                "curl -X POST localhost:8000/streams/orders -H 'content-type: application/json' \\",
                "  -d '{\"order_id\": \"o1\"}'",
                "curl https://ingest.example.com:8000/streams/orders",
                "java -jar examples/target/interlace-examples.jar sql \"SELECT 1\"",
                "java -jar examples/target/interlace-examples.jar keys create --name shop --scope read",
                "```",
                "",
                "```",
                "$ interlace runs --trigger manual",
                "interlace runs: output, not a command",
                "$ interlace runs --server https://elsewhere:8443",
                "```",
                "```json",
                "{\"curl\": \"localhost:8000\"}",
                "```");
        assertThat(examples).extracting(DocExamples.Example::line).containsExactly(3, 6, 11);
        assertThat(examples).extracting(DocExamples.Example::command).containsExactly(
                "curl -X POST localhost:8000/streams/orders -H 'content-type: application/json' -d"
                        + " '{\"order_id\": \"o1\"}'",
                "interlace sql \"SELECT 1\"",
                "interlace runs --trigger manual");
        assertThat(examples).allMatch(example -> example.kind() == DocExamples.Kind.SUCCEEDS);
    }

    @Test
    void markersSayWhatABlockShouldAnswerWhetherToRunItAndWhatToSetUpFirst() throws Exception {
        List<DocExamples.Example> examples = read(
                "<!-- expect: 404 -->",
                "```sh",
                "curl localhost:8000/streams/nope",
                "```",
                "<!-- expect: 4xx -->",
                "```",
                "$ interlace correlate nope",
                "```",
                "<!-- docs-check: skip needs a second server -->",
                "```sh",
                "curl localhost:8000/health/ready",
                "```",
                "<!-- docs-check: setup",
                "curl -X POST localhost:8000/streams/orders -H 'X-Request-Id: req-bad' -d '{}'",
                "-->",
                "```sh",
                "curl localhost:8000/streams/orders",
                "```");
        assertThat(examples).extracting(DocExamples.Example::kind).containsExactly(DocExamples.Kind.FAILS,
                DocExamples.Kind.FAILS, DocExamples.Kind.SETUP, DocExamples.Kind.SUCCEEDS);
        assertThat(examples.get(0).accepts(404)).isTrue();
        assertThat(examples.get(0).accepts(400)).isFalse();
        assertThat(examples.get(1).accepts(409)).isTrue();
        assertThat(examples.get(1).accepts(200)).isFalse();
        assertThat(examples.get(3).accepts(200)).isTrue();
        assertThat(examples.get(3).accepts(404)).isFalse();
        assertThat(examples.get(2).line()).isEqualTo(14);
    }

    @Test
    void anAmpersandOutsideQuotesIsFoundAndOneInsideQuotesOrAfterACommentIsNot() {
        assertThat(DocExamples.unquotedAmpersand("curl localhost:8000/runs?model=m&limit=5")).isEqualTo(32);
        assertThat(DocExamples.unquotedAmpersand("curl 'localhost:8000/runs?model=m&limit=5'")).isEqualTo(-1);
        assertThat(DocExamples.unquotedAmpersand("curl \"localhost:8000/runs?model=m&limit=5\"")).isEqualTo(-1);
        assertThat(DocExamples.unquotedAmpersand("curl localhost:8000/runs && echo done")).isEqualTo(-1);
        assertThat(DocExamples.unquotedAmpersand("curl localhost:8000/runs   # ?a=1&b=2")).isEqualTo(-1);
    }
}
