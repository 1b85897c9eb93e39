package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /sql} deadline under load, as a client sees it: a query DuckDB cannot interrupt in every query slot of a
 * server at once, while orders are published one by one and {@code /health/live} is asked between them until every
 * query is answered. What the server's {@code --sql-isolation} and log are is the caller's.
 */
public final class UncancellableQueries {

    /**
     * Ten billion lambda calls in one row: DuckDB checks for a cancelled query between vectors of rows, never inside
     * this one, and no function bound refuses it.
     */
    public static final String QUERY = "SELECT list_transform(range(100000),"
            + " lambda x: len(list_filter(range(100000), lambda y: y % (x + 1) = 0)))";
    /** The server's query slots. */
    private static final int SLOTS = 4;

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private UncancellableQueries() {}

    /** A query's answer and how long it took. */
    public record Answer(int status, String body, long millis) {}

    /**
     * What the run saw.
     *
     * @param answers the queries' answers
     * @param published the orders published (and answered 200) while the queries ran, {@code o0} onwards
     * @param refusedPublishes the publishes and liveness probes answered other than 200, with their status
     * @param startedNanos when the queries were sent ({@link System#nanoTime})
     */
    public record Run(List<Answer> answers, int published, List<String> refusedPublishes, long startedNanos) {

        /** How long ago the queries were sent. */
        public long millisSinceStart() {
            return (System.nanoTime() - startedNanos) / 1_000_000;
        }

        /** The longest a query waited for its answer. */
        public long slowestMillis() {
            return answers.stream().mapToLong(Answer::millis).max().orElse(0);
        }
    }

    /** Runs {@link #QUERY} in every query slot of the server at {@code base} while publishing to {@code orders}. */
    public static Run duringPublishes(URI base) {
        List<CompletableFuture<Answer>> queries = new ArrayList<>();
        long startedNanos = System.nanoTime();
        for (int i = 0; i < SLOTS; i++) {
            queries.add(CompletableFuture.supplyAsync(() -> {
                long started = System.nanoTime();
                HttpResponse<String> answer = sql(base, QUERY);
                return new Answer(answer.statusCode(), answer.body(), (System.nanoTime() - started) / 1_000_000);
            }));
        }
        int published = 0;
        List<String> refused = new ArrayList<>();
        while (!CompletableFuture.allOf(queries.toArray(CompletableFuture[]::new)).isDone()) {
            HttpResponse<String> live = send(HttpRequest.newBuilder(base.resolve("/health/live")).GET());
            if (live.statusCode() != 200) {
                refused.add("/health/live " + live.statusCode() + " " + live.body());
            }
            HttpResponse<String> publish = publish(base, "o" + published);
            if (publish.statusCode() == 200) {
                published++;
            } else {
                refused.add("publish " + publish.statusCode() + " " + publish.body());
            }
        }
        Run run = new Run(queries.stream().map(CompletableFuture::join).toList(), published, refused, startedNanos);
        System.out.println("uncancellable queries answered after " + run.answers().stream()
                .map(answer -> answer.millis() + " ms (" + answer.status() + ")").toList() + "; " + published
                + " orders published meanwhile");
        return run;
    }

    /** Asserts that the queries were answered within {@code deadlineMillis} and two seconds, meanwhile the rest. */
    public static void assertHeldTo(Run run, long deadlineMillis) {
        for (Answer answer : run.answers()) {
            // 408 for the query past its deadline; 503 (retry) for one that ran beside it in the killed process
            assertThat(answer.status()).as("%s", answer.body()).isIn(408, 503);
            assertThat(answer.millis()).as("answered within the deadline and two seconds")
                    .isLessThan(deadlineMillis + 2_000);
        }
        assertThat(run.refusedPublishes()).as("publishes and /health/live answered 200 throughout").isEmpty();
        assertThat(run.published()).as("publishes answered while the queries ran").isPositive();
    }

    public static HttpResponse<String> sql(URI base, String query) {
        return send(HttpRequest.newBuilder(base.resolve("/sql")).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(query)));
    }

    public static HttpResponse<String> publish(URI base, String orderId) {
        return send(HttpRequest.newBuilder(base.resolve("/streams/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"order_id\":\"" + orderId + "\",\"total\":"
                        + orderId.length() + ".50}")));
    }

    public static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
