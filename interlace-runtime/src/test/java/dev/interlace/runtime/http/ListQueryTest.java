package dev.interlace.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** List filters are parsed one way: typed getters, and {@code 400 invalid_parameter} for any mistake. */
class ListQueryTest {

    private static ListQuery query(String target, String... known) {
        return ListQuery.of(new HttpRequest("GET", target, Map.of(), new byte[0]), "req-1", Set.of(known));
    }

    /** The message of the invalid_parameter refusal {@code parse} throws. */
    private static String refusal(Runnable parse) {
        Throwable thrown = catchThrowable(parse::run);
        assertThat(thrown).isInstanceOf(Refusal.class);
        HttpAnswer answer = ((Refusal) thrown).answer();
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.error()).isEqualTo("invalid_parameter");
        return answer.message();
    }

    @Test
    void anUnknownParameterIsRefusedNamingTheKnownFiltersInOrder() {
        assertThat(refusal(() -> query("/runs?limt=5", "status", "limit", "model")))
                .isEqualTo("unknown parameter limt; known parameters: limit, model, status");
        assertThat(refusal(() -> query("/streams?foo=1"))).isEqualTo("unknown parameter foo; known parameters: none");
    }

    @Test
    void typedGettersReadTheirValuesAndDefaults() {
        ListQuery query = query("/x?model=revenue&since=2026-11-29T08:00:00Z&until=5&limit=7&after=3",
                "model", "since", "until", "limit", "after", "status");
        assertThat(query.text("model")).isEqualTo("revenue");
        assertThat(query.text("status")).isNull();
        assertThat(query.time("since")).isEqualTo(1_795_939_200_000_000L);
        assertThat(query.time("until")).isEqualTo(5L);
        assertThat(query.limit()).isEqualTo(7);
        assertThat(query.number("after", 0, 0, Long.MAX_VALUE)).isEqualTo(3);
        assertThat(query("/x", "limit").limit()).isEqualTo(ListQuery.DEFAULT_LIMIT);
    }

    @Test
    void badValuesAreRefusedWithAMessageNamingTheParameter() {
        assertThat(refusal(() -> query("/x?limit=0", "limit").limit())).isEqualTo("limit must be between 1 and 1000");
        assertThat(refusal(() -> query("/x?limit=lots", "limit").limit()))
                .isEqualTo("limit must be between 1 and 1000");
        assertThat(refusal(() -> query("/x?since=yesterday", "since").time("since")))
                .startsWith("since must be RFC 3339");
        assertThat(refusal(() -> query("/x?after=-1", "after").number("after", 0, 0, 10)))
                .isEqualTo("after must be between 0 and 10");
        assertThat(refusal(() -> query("/x?after=x", "after").number("after", 0, 0, 10)))
                .isEqualTo("after must be a whole number, got x");
        assertThat(refusal(() -> query("/x?status=done", "status").oneOf("status", List.of("queued", "failed"))))
                .isEqualTo("status must be one of queued, failed");
        assertThat(refusal(() -> query("/x?status=abc", "status").status("status")))
                .isEqualTo("status must be an HTTP status code, e.g. 200 or 429");
    }

    @Test
    void aFlagIsTrueOrFalseAndNothingElse() {
        assertThat(query("/x?verbose=true", "verbose").flag("verbose", false)).isTrue();
        assertThat(query("/x?verbose=false", "verbose").flag("verbose", true)).isFalse();
        assertThat(query("/x", "verbose").flag("verbose", false)).isFalse();
        assertThat(refusal(() -> query("/x?verbose=1", "verbose").flag("verbose", false)))
                .isEqualTo("verbose must be true or false, got 1");
    }
}
