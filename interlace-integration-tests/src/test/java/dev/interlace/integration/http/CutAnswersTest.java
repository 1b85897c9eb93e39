package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.dedup.DedupIndex;
import dev.interlace.runtime.log.AppendListener;
import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.PayloadAllowance;
import dev.interlace.runtime.log.QuarantineEntry;
import dev.interlace.runtime.log.StreamHead;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streamed page whose next batch cannot be read after its head was sent (a test-only fault: the log refuses every
 * read past the first event) ends without its last chunk: a client sees a failed read, never a page it could take for
 * whole.
 */
class CutAnswersTest {

    /** Three events of about 1 MB: the page's first batch (1 MiB) holds two, the third needs a second batch. */
    private static final int EVENT_BYTES = 1_000_000;

    @TempDir
    Path scratch;

    @Test
    void aPageWhoseNextBatchCannotBeReadEndsWithoutItsLastChunk() throws Exception {
        AbstractModule cutting = new AbstractModule() {
            @Provides
            @Singleton
            EventLog eventLog(StreamLog log) {
                return new ReadsFailPastTheFirstEvent(log);
            }
        };
        try (TestServer api = TestServer.startWith(scratch, TestServer.CATALOG, List.of(cutting))) {
            for (int i = 0; i < 3; i++) {
                assertThat(api.postJson("/streams/orders", "{\"order_id\":\"big-" + i + "\",\"meta\":{\"note\":\""
                        + "0123456789abcdef".repeat(EVENT_BYTES / 16) + "\"}}").status()).isEqualTo(200);
            }
            URI uri = api.server.uri();

            assertThatThrownBy(() -> api.client.send(HttpRequest.newBuilder(uri.resolve(
                    "/streams/orders/events?after=0&limit=10")).timeout(Duration.ofSeconds(60)).GET().build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);

            try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                socket.setSoTimeout(60_000);
                socket.getOutputStream().write(("GET /streams/orders/events?after=0&limit=10 HTTP/1.1\r\nHost: "
                        + uri.getHost() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                String raw = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(raw).startsWith("HTTP/1.1 200 OK").contains("transfer-encoding: chunked")
                        .contains("\"order_id\":\"big-1\"").doesNotContain("big-2").doesNotEndWith("\r\n0\r\n\r\n");
            }

            // A page that its first batch holds whole is answered as before.
            TestServer.Response first = api.get("/streams/orders/events?after=0&limit=1");
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body().get("count").asInt()).isEqualTo(1);
        }
    }

    /** The log as it is, except that reading events after the first one fails as an unreadable log does. */
    private static final class ReadsFailPastTheFirstEvent implements EventLog {

        private final StreamLog log;

        ReadsFailPastTheFirstEvent(StreamLog log) {
            this.log = log;
        }

        private static void failPastTheFirst(long afterOffset) {
            if (afterOffset >= 2) {
                throw new LogUnavailableException("reading past the first events fails (test fault)");
            }
        }

        @Override
        public void register(StreamDescriptor stream) {
            log.register(stream);
        }

        @Override
        public CompletableFuture<AppendResult> append(AppendRequest request) {
            return log.append(request);
        }

        @Override
        public boolean appendReturnsAtOnce() {
            return log.appendReturnsAtOnce();
        }

        @Override
        public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
                throws InterruptedException {
            failPastTheFirst(afterOffset);
            return log.read(stream, afterOffset, limit, maxBytes, wait);
        }

        @Override
        public List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes,
                PayloadAllowance allowance) throws InterruptedException {
            failPastTheFirst(afterOffset);
            return log.read(stream, afterOffset, limit, maxBytes, allowance);
        }

        @Override
        public List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes) {
            return log.readQuarantine(stream, afterSeq, limit, maxBytes);
        }

        @Override
        public List<QuarantineEntry> readQuarantine(String stream, long afterSeq, int limit, long maxBytes,
                PayloadAllowance allowance) {
            return log.readQuarantine(stream, afterSeq, limit, maxBytes, allowance);
        }

        @Override
        public void addAppendListener(AppendListener listener) {
            log.addAppendListener(listener);
        }

        @Override
        public List<LogEntry> latest(String stream, int limit, long maxBytes) {
            return log.latest(stream, limit, maxBytes);
        }

        @Override
        public List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
            return log.latest(stream, limit, maxBytes, allowance);
        }

        @Override
        public Map<String, StreamHead> heads() {
            return log.heads();
        }

        @Override
        public long trim(String stream, long throughOffset) {
            return log.trim(stream, throughOffset);
        }

        @Override
        public long firstOffsetSince(String stream, long epochMicros) {
            return log.firstOffsetSince(stream, epochMicros);
        }

        @Override
        public long offsetOfKey(String stream, String key) {
            return log.offsetOfKey(stream, key);
        }

        @Override
        public Optional<DedupIndex.Stats> dedupStats(String stream) {
            return log.dedupStats(stream);
        }

        @Override
        public Health health() {
            return log.health();
        }

        @Override
        public void close() {
            // the server closes the log itself
        }
    }
}
