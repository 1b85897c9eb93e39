package dev.interlace.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal blocking HTTP/1.1 keep-alive client: one socket, one request at a time, fixed-length bodies only. Used by
 * {@link PublishBenchmark} with {@code --client raw} to show how much of the machine the JDK's {@code HttpClient}
 * itself costs when the load generator shares the cores with the server.
 */
final class RawHttpClient implements AutoCloseable {

    /** A response: status, body text and the {@code Retry-After} header in seconds (-1 when absent). */
    record Response(int status, String body, int retryAfter) {
        Response(int status, String body) {
            this(status, body, -1);
        }
    }

    private final URI uri;
    private final byte[] head;
    private final byte[] getHead;
    private int timeoutMillis;
    private Socket socket;
    private OutputStream out;
    private InputStream in;

    RawHttpClient(URI uri) {
        this(uri, "application/json");
    }

    RawHttpClient(URI uri, String contentType) {
        this.uri = uri;
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        this.head = ("POST " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nContent-Type: " + contentType + "\r\nContent-Length: ").getBytes(StandardCharsets.US_ASCII);
        this.getHead = ("GET " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** Gives up on a connect or a read after {@code millis} (0, the default: waits for ever); returns this client. */
    RawHttpClient timeout(int millis) {
        this.timeoutMillis = millis;
        return this;
    }

    Response post(byte[] body) throws IOException {
        return exchange(body);
    }

    Response get() throws IOException {
        return exchange(null);
    }

    private Response exchange(byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        }
        try {
            if (body == null) {
                out.write(getHead);
            } else {
                out.write(head);
                out.write((body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
            }
            out.flush();
            String status = line();
            int code = Integer.parseInt(status.substring(9, 12));
            int length = -1;
            boolean close = false;
            int retryAfter = -1;
            for (String header = line(); !header.isEmpty(); header = line()) {
                String lower = header.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(header.substring(15).strip());
                } else if (lower.startsWith("retry-after:")) {
                    retryAfter = Integer.parseInt(header.substring(12).strip());
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            if (length < 0) {
                throw new IOException("response without Content-Length");
            }
            byte[] content = in.readNBytes(length);
            if (content.length < length) {
                throw new EOFException("connection closed in the body");
            }
            if (close) {
                close();
            }
            return new Response(code, new String(content, StandardCharsets.UTF_8), retryAfter);
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
