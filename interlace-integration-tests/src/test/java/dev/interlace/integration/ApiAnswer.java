package dev.interlace.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.client.ErrorCode;
import java.net.http.HttpHeaders;

/**
 * What a test's HTTP client got back from a server: the status, the headers and the JSON body. The in-process
 * {@code TestServer} and the child-process {@code ServeNode} answer with records of their own that share this, so one
 * assertion reads an error the same way for both.
 */
public interface ApiAnswer {

    int status();

    HttpHeaders headers();

    /** The parsed body; {@code null} when the answer had none. */
    JsonNode body();

    /** The first value of the header {@code name}, or {@code null}. */
    default String header(String name) {
        return headers().firstValue(name).orElse(null);
    }

    /**
     * Asserts that {@code answer} is the error {@code code} with HTTP {@code status}, as a client sees it: the status
     * line and the {@code "error"} field of the body.
     */
    static void assertError(ApiAnswer answer, int status, ErrorCode code) {
        assertThat(answer.status()).as("status of an answer expected to be %s: %s", code.code(), answer.body())
                .isEqualTo(status);
        assertThat(answer.body().path("error").asText()).isEqualTo(code.code());
    }
}
