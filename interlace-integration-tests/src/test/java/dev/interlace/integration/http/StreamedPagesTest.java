package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pages of stored events are written from the log to the socket batch by batch, each batch reserved against the
 * in-flight budget only until it is written: readers that do not read hold one batch each, not their whole page, so
 * many pages far larger than the budget would admit whole are all served, on a heap smaller than their sum.
 */
class StreamedPagesTest {

    /** About 1 MB per event: nine of them make one page (it ends with the event that reaches 8 MiB). */
    private static final int EVENT_BYTES = 1_000_000;
    private static final int EVENTS = 9;
    private static final int READERS = 20;
    /**
     * The budget: room for two pages built whole (3 copies of 9 MB each), for twenty streamed ones (a batch of about
     * 2 MB each).
     */
    private static final long BUDGET = 64_000_000;

    @TempDir
    Path scratch;

    @RegisterExtension
    final ChildServer server = new ChildServer();

    @Test
    void twentyReadersThatStallOnNineMegabytePagesAreAllServedWholeOnA128MiBHeapUnderA64MBBudget()
            throws Exception {
        URI uri = server.start(scratch, "-Xmx128m", "--max-inflight-bytes", Long.toString(BUDGET));
        for (int i = 0; i < EVENTS; i++) {
            String body = "{\"order_id\":\"big-" + i + "\",\"meta\":{\"note\":\"" + "0123456789abcdef"
                    .repeat(EVENT_BYTES / 16) + "\"}}";
            HttpResponse<String> published = server.client.send(HttpRequest.newBuilder(uri.resolve("/streams/orders"))
                    .timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(published.statusCode()).as(published.body()).isEqualTo(200);
        }

        // Each reader asks for the page and reads only its status line: the rest waits in the socket, unread.
        List<Socket> readers = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        try {
            for (int i = 0; i < READERS; i++) {
                Socket reader = new Socket();
                reader.setReceiveBufferSize(32 * 1024); // before connecting, so that the window stays small
                reader.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 30_000);
                reader.setSoTimeout(120_000);
                reader.getOutputStream().write(("GET /streams/orders/events?after=0&limit=100 HTTP/1.1\r\nHost: "
                        + uri.getHost() + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                readers.add(reader);
                statuses.merge(line(reader.getInputStream()), 1, Integer::sum);
            }
            System.out.println("status lines: " + statuses);
            assertThat(server.isAlive()).as(server.stderr()).isTrue();
            assertThat(statuses).as(statuses + "; " + server.stderr()).containsOnlyKeys("HTTP/1.1 200 OK");

            HttpResponse<String> live = server.client.send(HttpRequest.newBuilder(uri.resolve("/health/live"))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(live.statusCode()).isEqualTo(200);

            // Now every reader reads its answer: each is the whole page (a page that the budget could not hold whole
            // would have ended early), the events as they were sent, and it came chunked.
            List<JsonNode> pages = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            List<Boolean> chunked = new ArrayList<>();
            for (Socket reader : readers) {
                Answer answer = read(reader.getInputStream());
                JsonNode page = TestServer.JSON.readTree(answer.body());
                pages.add(page);
                counts.add(page.get("count").asInt());
                chunked.add(answer.chunked());
            }
            System.out.println("events per page: " + counts);
            assertThat(counts).containsOnly(EVENTS);
            assertThat(chunked).containsOnly(true);
            for (JsonNode page : pages) {
                assertThat(page.get("next_after").asLong()).isEqualTo(EVENTS);
                assertThat(page.get("request_id").asText()).isNotEmpty();
                for (int i = 0; i < EVENTS; i++) {
                    JsonNode event = page.get("events").get(i);
                    assertThat(event.get("offset").asLong()).isEqualTo(i + 1);
                    assertThat(event.get("event").get("order_id").asText()).isEqualTo("big-" + i);
                    assertThat(event.get("event").get("meta").get("note").asText()).hasSize(EVENT_BYTES);
                }
            }
        } finally {
            for (Socket reader : readers) {
                reader.close();
            }
        }
        assertThat(server.isAlive()).as(server.stderr()).isTrue();
    }

    /** One line of the answer's head, without its CRLF. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    /** An answer's body, and whether it came chunked. */
    private record Answer(String body, boolean chunked) {}

    /** The rest of the head (the status line was read), then the body: chunked, ending with its last chunk, or not. */
    private static Answer read(InputStream in) throws IOException {
        boolean chunked = false;
        int length = -1;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            chunked |= header.equalsIgnoreCase("Transfer-Encoding: chunked");
            if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(header.substring("content-length:".length()).trim());
            }
        }
        if (!chunked) {
            return new Answer(new String(in.readNBytes(length), StandardCharsets.UTF_8), false);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int size = Integer.parseInt(line(in).trim(), 16);
            if (size == 0) {
                assertThat(line(in)).isEmpty();
                return new Answer(body.toString(StandardCharsets.UTF_8), true);
            }
            body.write(in.readNBytes(size));
            assertThat(line(in)).isEmpty();
        }
    }
}
