package dev.interlace.runtime.queryprocess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends {@code POST /sql} to the {@link QueryProcess} and holds it to its deadline: a query whose answer has not come
 * {@link #GRACE_MILLIS} after its time limit is ended by killing the process that runs it. First the process is
 * asked to wait until it has materialised what the server's warehouse had when the query came (a {@code SELECT 1}
 * with those positions in {@code Interlace-After}), so that a query sees what it would have seen in the server's own
 * warehouse; the query's deadline counts from when that wait is over.
 */
public final class ProcessQueries {

    /** How long past its time limit a query may go unanswered before its process is killed. */
    static final long GRACE_MILLIS = 500;
    /** The answer headers relayed to the client besides the body's type. */
    private static final List<String> RELAYED = List.of("interlace-truncated", "interlace-rows", "retry-after",
            "interlace-warehouse-lag");

    private final QueryProcess process;
    private volatile boolean stopping;
    private final long timeoutMillis;
    private final long readWaitMillis;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /** Query processes killed because a query ran past its deadline. */
    private final io.micrometer.core.instrument.Counter kills;

    public ProcessQueries(QueryProcess process, long timeoutMillis, long readWaitMillis,
            io.micrometer.core.instrument.MeterRegistry registry) {
        this.kills = io.micrometer.core.instrument.Counter.builder("interlace.sql.query.process.kills")
                .description("Query processes killed because a POST /sql query ran past its deadline")
                .register(registry);
        this.process = process;
        this.timeoutMillis = timeoutMillis;
        this.readWaitMillis = readWaitMillis;
    }

    /** The query process's answer, relayed to the client as it is. */
    public record Answer(int status, String contentType, Map<String, String> headers, byte[] body) {}

    /** Why a query got no answer from the query process. */
    public static final class NoAnswer extends Exception {

        private static final long serialVersionUID = 1L;
        private final Reason reason;

        NoAnswer(String message, Reason reason) {
            super(message);
            this.reason = reason;
        }

        public Reason reason() {
            return reason;
        }
    }

    /** Why there was no answer. */
    public enum Reason {
        /** The query ran past its deadline: its process was killed. */
        DEADLINE_PASSED,
        /** No query process could take it (restarting, or killed for another query's deadline). */
        UNAVAILABLE,
        /** The server is shutting down. */
        SHUTTING_DOWN
    }

    /**
     * Stops the query process, so that queries running in it end now: the server is shutting down, and those queries
     * are answered {@link Reason#SHUTTING_DOWN}, as later ones are.
     */
    public void stop() {
        stopping = true;
        process.close();
    }

    /**
     * Runs one query in the query process.
     *
     * @param body the request body as the client sent it
     * @param after the positions the process must have materialised first ({@code Interlace-After} syntax), or null
     */
    public Answer query(byte[] body, String contentType, String accept, String after, String requestId)
            throws NoAnswer, InterruptedException {
        process.start();
        if (!process.firstStart().isDone()) {
            // The first queries after the server's start wait for the query process to listen, as long as a query
            // may run; after a kill it is restarting, and they are refused at once.
            try {
                process.firstStart().get(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // answered below: stopping, or not started yet
            }
        }
        QueryProcess.Endpoint endpoint = process.endpoint();
        if (stopping) {
            throw shuttingDown();
        }
        if (endpoint == null) {
            throw new NoAnswer("the query process is starting (it restarts after a query that ran past its"
                    + " deadline was stopped); retry in a moment", Reason.UNAVAILABLE);
        }
        if (after != null) {
            Answer caughtUp = send(endpoint, "SELECT 1".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "text/plain", null, after, requestId, readWaitMillis + timeoutMillis + GRACE_MILLIS, false);
            if (caughtUp.status() != 200) {
                return caughtUp;
            }
        }
        return send(endpoint, body, contentType, accept, null, requestId, timeoutMillis + GRACE_MILLIS, true);
    }

    private static NoAnswer shuttingDown() {
        return new NoAnswer("the server is shutting down: the query was cancelled; retry against the restarted server",
                Reason.SHUTTING_DOWN);
    }

    private Answer send(QueryProcess.Endpoint endpoint, byte[] body, String contentType, String accept, String after,
            String requestId, long waitMillis, boolean deadline) throws NoAnswer, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port()
                + "/sql")).timeout(Duration.ofMillis(waitMillis))
                .header("Authorization", "Bearer " + endpoint.secret())
                .header("X-Request-Id", requestId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (accept != null) {
            request.header("Accept", accept);
        }
        if (after != null) {
            request.header("Interlace-After", after);
        }
        HttpResponse<byte[]> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            String why = deadline ? "a query ran past its deadline of " + timeoutMillis + " ms"
                    : "the query process did not catch up with the warehouse within " + waitMillis + " ms";
            process.kill(endpoint, why);
            kills.increment();
            throw new NoAnswer(deadline ? "the query ran longer than " + timeoutMillis + " ms; the query process"
                    + " running it was stopped (what DuckDB cannot interrupt ends with it) and is restarting"
                    : why + "; it was restarted; retry in a moment",
                    deadline ? Reason.DEADLINE_PASSED : Reason.UNAVAILABLE);
        } catch (IOException e) {
            if (stopping) {
                throw shuttingDown();
            }
            throw new NoAnswer("the query process stopped while it ran the query (another query ran past its"
                    + " deadline, and the process with it); retry in a moment", Reason.UNAVAILABLE);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        response.headers().map().forEach((name, values) -> {
            if (RELAYED.contains(name.toLowerCase(Locale.ROOT)) && !values.isEmpty()) {
                headers.put(name, values.get(0));
            }
        });
        return new Answer(response.statusCode(), response.headers().firstValue("Content-Type")
                .orElse("application/json"), headers, response.body());
    }
}
