package dev.interlace.integration.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A client that writes whatever bytes a test wants (half a request, a lying Content-Length) on a plain socket and
 * reads the answer as raw text: what an attacker has, not what a well-behaved HTTP library allows.
 */
final class RawClient implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    /** Bytes received but not yet returned as an answer (the next pipelined answer, say). */
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    RawClient(URI server) {
        this(server, null);
    }

    /** A client whose connection leaves from {@code local} (another loopback address, 127.0.0.2, say); null: any. */
    RawClient(URI server, InetAddress local) {
        try {
            socket = new Socket();
            if (local != null) {
                socket.bind(new InetSocketAddress(local, 0));
            }
            socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 5_000);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = socket.getInputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code text}; false when the server has closed the connection. */
    boolean write(String text) {
        try {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Reads until the server closes the connection or one whole answer (headers plus Content-Length bytes) has
     * arrived, waiting at most {@code timeoutMillis}; null when nothing came in time.
     */
    Answer read(int timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        byte[] buffer = new byte[8192];
        boolean closed = false;
        try {
            while (true) {
                Answer answer = Answer.parse(received.toByteArray(), false);
                if (answer != null) {
                    keepAfter(answer.length());
                    return answer;
                }
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return null;
                }
                socket.setSoTimeout((int) left);
                int read;
                try {
                    read = in.read(buffer);
                } catch (SocketTimeoutException e) {
                    return null;
                } catch (IOException e) {
                    read = -1;
                }
                if (read < 0) {
                    closed = true;
                    Answer last = Answer.parse(received.toByteArray(), closed);
                    received.reset();
                    return last;
                }
                received.write(buffer, 0, read);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void keepAfter(int consumed) {
        byte[] all = received.toByteArray();
        received.reset();
        received.write(all, consumed, all.length - consumed);
    }

    /** Whether the server closed the connection within {@code timeoutMillis} (after any answer was read). */
    boolean closedWithin(int timeoutMillis) {
        try {
            socket.setSoTimeout(timeoutMillis);
            byte[] buffer = new byte[1024];
            while (true) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the server: closed too
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket the server may already have closed
        }
    }

    /** An answer as raw text: status, headers and body. */
    record Answer(int status, String head, String body, boolean closed, int length) {

        static Answer parse(byte[] bytes, boolean closed) {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                return closed ? new Answer(-1, text, "", true, bytes.length) : null;
            }
            String head = text.substring(0, end);
            int length = 0;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring("content-length:".length()).strip());
                }
            }
            int available = bytes.length - (end + 4);
            if (available < length && !closed) {
                return null;
            }
            int bodyLength = Math.min(length, available);
            String body = new String(bytes, end + 4, bodyLength, StandardCharsets.UTF_8);
            return new Answer(Integer.parseInt(head.split(" ")[1]), head, body, closed, end + 4 + bodyLength);
        }
    }
}
