package dev.interlace.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.records.SysEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The REST reference and the server speak one vocabulary: every {@link ErrorCode} the server answers is documented in
 * {@code docs/rest-api.md} with its status, and every status and code the page names is one the server sends with
 * that status; every {@link SysEvent} is named where {@code GET /logs/sys} is.
 */
class ProtocolVocabularyDocumentedTest {

    /** {@code | 413 | `payload_too_large` |} in a table, or {@code `409 lease_held`} in prose. */
    private static final Pattern DOCUMENTED = Pattern.compile(
            "^\\| (\\d{3}) \\| `([a-z_]+)`|`(\\d{3}) ([a-z_]+)`", Pattern.MULTILINE);

    @Test
    void everyErrorCodeIsDocumentedWithItsStatusAndTheDocsNameNoOther() throws IOException {
        String page = Files.readString(ProjectRoot.find().resolve("docs").resolve("rest-api.md"));
        TreeSet<String> documented = new TreeSet<>();
        List<String> unknown = new ArrayList<>();
        Matcher matcher = DOCUMENTED.matcher(page);
        while (matcher.find()) {
            int status = Integer.parseInt(matcher.group(1) != null ? matcher.group(1) : matcher.group(3));
            String code = matcher.group(2) != null ? matcher.group(2) : matcher.group(4);
            documented.add(status + " " + code);
            if (ErrorCode.of(code).filter(known -> known.status() == status).isEmpty()) {
                unknown.add(status + " " + code);
            }
        }
        assertThat(unknown).as("statuses and codes docs/rest-api.md names that the server never answers").isEmpty();
        List<String> undocumented = new ArrayList<>();
        for (ErrorCode code : ErrorCode.values()) {
            if (!documented.contains(code.toString())) {
                undocumented.add(code.toString());
            }
        }
        assertThat(undocumented).as("error codes missing from docs/rest-api.md").isEmpty();
    }

    @Test
    void everySystemRecordEventIsNamedWhereTheSystemLogIsDocumented() throws IOException {
        String page = Files.readString(ProjectRoot.find().resolve("docs").resolve("rest-api.md"));
        int start = page.indexOf("## `GET /logs/sys`");
        String section = page.substring(start, page.indexOf("\n## ", start + 1));
        List<String> missing = new ArrayList<>();
        for (SysEvent event : SysEvent.values()) {
            if (!section.contains("`" + event.wire() + "`")) {
                missing.add(event.wire());
            }
        }
        assertThat(missing).as("system record events missing from GET /logs/sys in docs/rest-api.md").isEmpty();
    }
}
