package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Stored event payloads as JSON in answers. */
final class StoredEvents {

    private StoredEvents() {}

    static JsonNode payload(byte[] stored) {
        try {
            return HttpResponses.JSON.readTree(stored);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
