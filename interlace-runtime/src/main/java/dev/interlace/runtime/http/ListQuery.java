package dev.interlace.runtime.http;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.ops.EpochMicros;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The query parameters of a list route (and of publish), read through typed getters. Every mistake — a parameter the
 * route does not know, a value of the wrong shape or out of bounds — is answered {@code 400 invalid_parameter} with
 * the parameter's name in the message and in {@code parameter}, and for an unknown one the route's parameters in
 * {@code known}, so that a client handles one error however it mistyped a query.
 */
final class ListQuery {

    /** The error of every mistake in a query. */
    static final ErrorCode CODE = ErrorCode.INVALID_PARAMETER;

    /** Most items a list route returns unless it says otherwise. */
    static final int MAX_LIMIT = 1000;
    /**
     * The most bytes of stored events (as they were sent) one page of them holds: the page ends with the event that
     * reaches this, so it always holds one, and {@code next_after} goes on from there. A page is streamed a batch at a
     * time, so this bounds how much one answer reads and writes rather than what it holds.
     */
    static final long PAGE_BYTES = 8L << 20;
    /** Items returned when {@code limit} is not given. */
    static final int DEFAULT_LIMIT = 100;

    private final Map<String, String> query;
    private final String requestId;

    private ListQuery(Map<String, String> query, String requestId) {
        this.query = query;
        this.requestId = requestId;
    }

    /**
     * The request's parameters, every one of them among {@code known}.
     *
     * @throws Refusal {@code 400 invalid_parameter} naming the first unknown parameter and the known ones
     */
    static ListQuery of(HttpRequest request, String requestId, Set<String> known) {
        Map<String, String> query = request.query();
        for (String name : query.keySet()) {
            if (!known.contains(name)) {
                TreeSet<String> sorted = new TreeSet<>(known);
                ObjectNode body = HttpResponses.errorBody(CODE, "unknown parameter " + name + "; known parameters: "
                        + (known.isEmpty() ? "none" : String.join(", ", sorted)), requestId);
                body.put("parameter", name);
                sorted.forEach(body.putArray("known")::add);
                throw new Refusal(HttpResponses.error(CODE, body));
            }
        }
        return new ListQuery(query, requestId);
    }

    /** An exact-match text filter, or null when absent. */
    String text(String name) {
        return query.get(name);
    }

    /** A flag written {@code true} or {@code false}; {@code fallback} when absent. */
    boolean flag(String name, boolean fallback) {
        String value = query.get(name);
        if (value == null) {
            return fallback;
        }
        if (!value.equals("true") && !value.equals("false")) {
            throw invalid(name, name + " must be true or false, got " + value, requestId);
        }
        return value.equals("true");
    }

    /** True when the parameter is given. */
    boolean has(String name) {
        return query.containsKey(name);
    }

    /** A text filter that must be one of {@code allowed} (listed in this order when it is not), or null. */
    String oneOf(String name, List<String> allowed) {
        String value = query.get(name);
        if (value != null && !allowed.contains(value)) {
            throw invalid(name, name + " must be one of " + String.join(", ", allowed), requestId);
        }
        return value;
    }

    /** A value read by {@code parser} (empty when the text is not one), or null when absent. */
    <T> T parsed(String name, Function<String, Optional<T>> parser, String expected) {
        String value = query.get(name);
        if (value == null) {
            return null;
        }
        return parser.apply(value).orElseThrow(() -> invalid(name + " must be " + expected + ", got " + value,
                requestId));
    }

    /** A whole number within {@code [min, max]}, or {@code fallback} when absent. */
    long number(String name, long fallback, long min, long max) {
        String value = query.get(name);
        if (value == null) {
            return fallback;
        }
        long number;
        try {
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw invalid(name, name + " must be a whole number, got " + value, requestId);
        }
        if (number < min || number > max) {
            throw invalid(name, name + " must be between " + min + " and " + max, requestId);
        }
        return number;
    }

    /** {@code limit}: between 1 and {@code max}, {@code fallback} when absent. */
    int limit(int fallback, int max) {
        String value = query.get("limit");
        if (value == null) {
            return fallback;
        }
        int limit;
        try {
            limit = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            limit = 0;
        }
        if (limit < 1 || limit > max) {
            throw invalid("limit", "limit must be between 1 and " + max, requestId);
        }
        return limit;
    }

    /** {@code limit} between 1 and {@value #MAX_LIMIT}, {@value #DEFAULT_LIMIT} when absent. */
    int limit() {
        return limit(DEFAULT_LIMIT, MAX_LIMIT);
    }

    /** An HTTP status code filter, e.g. {@code 429}, or null when absent. */
    Integer status(String name) {
        String value = query.get(name);
        if (value == null) {
            return null;
        }
        if (!value.matches("[1-5]\\d\\d")) {
            throw invalid(name, name + " must be an HTTP status code, e.g. 200 or 429", requestId);
        }
        return Integer.valueOf(value);
    }

    /** A time filter in epoch microseconds, written as RFC 3339 or epoch microseconds; null when absent. */
    Long time(String name) {
        String value = query.get(name);
        if (value == null) {
            return null;
        }
        if (value.matches("-?\\d{1,18}")) {
            return Long.parseLong(value);
        }
        try {
            return EpochMicros.of(Instant.parse(value));
        } catch (DateTimeParseException | ArithmeticException e) {
            throw invalid(name, name + " must be RFC 3339 (e.g. 2026-11-29T08:00:00Z) or epoch microseconds, got "
                    + value, requestId);
        }
    }

    /** The answer to a query the route cannot use as a whole, e.g. one that lacks every parameter it needs. */
    static Refusal invalid(String message, String requestId) {
        return new Refusal(HttpResponses.error(CODE, message, requestId));
    }

    /** The answer to a value of {@code parameter} that the route cannot use. */
    static Refusal invalid(String parameter, String message, String requestId) {
        ObjectNode body = HttpResponses.errorBody(CODE, message, requestId);
        body.put("parameter", parameter);
        return new Refusal(HttpResponses.error(CODE, body));
    }
}
