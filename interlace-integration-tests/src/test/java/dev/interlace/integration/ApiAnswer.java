package dev.interlace.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

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

    /** Makes a test client's own answer record from what came back. */
    @FunctionalInterface
    interface Factory<A extends ApiAnswer> {
        A answer(int status, HttpHeaders headers, JsonNode body);
    }

    /**
     * Sends {@code request} with {@code client} and makes its answer: a JSON body ({@code Content-Type:
     * application/json}) read with {@code json}, any other body as a text node, none as {@code null}.
     */
    static <A extends ApiAnswer> A send(HttpClient client, ObjectMapper json, HttpRequest request,
            Factory<A> factory) {
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            boolean isJson = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
            JsonNode body = response.body().length == 0 ? null : isJson ? json.readTree(response.body())
                    : json.getNodeFactory().textNode(new String(response.body(), StandardCharsets.UTF_8));
            return factory.answer(response.statusCode(), response.headers(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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
