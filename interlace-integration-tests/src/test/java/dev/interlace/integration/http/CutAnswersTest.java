package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.StreamLog;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
                return readsFailPastTheFirstEvent(log);
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

    /**
     * The log as it is, except that reading events after the first one fails as an unreadable log does, and that
     * closing it leaves the log open (the server closes the log itself).
     */
    private static EventLog readsFailPastTheFirstEvent(StreamLog log) {
        InvocationHandler handler = (proxy, method, arguments) -> {
            if (method.getName().equals("close")) {
                return null;
            }
            if (method.getName().equals("read") && (long) arguments[1] >= 2) {
                throw new LogUnavailableException("reading past the first events fails (test fault)");
            }
            try {
                return method.invoke(log, arguments);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (EventLog) Proxy.newProxyInstance(EventLog.class.getClassLoader(), new Class<?>[] {EventLog.class},
                handler);
    }
}
