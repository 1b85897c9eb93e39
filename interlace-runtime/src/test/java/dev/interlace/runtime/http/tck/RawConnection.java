package dev.interlace.runtime.http.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One client connection on a plain socket that writes exactly the bytes a test gives it (half a request, a lying
 * length, three requests at once) and reads answers as bytes: what a hostile client has, not what an HTTP library
 * allows.
 */
final class RawConnection implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    /** Bytes received and not yet returned in an answer (the start of the next pipelined answer, say). */
    private byte[] pending = new byte[0];
    private boolean closedByServer;

    RawConnection(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = socket.getInputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code text} (ISO-8859-1); false when the server has closed the connection. */
    boolean write(String text) {
        return write(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Writes {@code bytes}; false when the server has closed the connection. */
    boolean write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Closes the sending half (a TCP FIN), as a client does that has nothing more to ask; answers still arrive. */
    void finishWriting() {
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads one whole answer (status line, headers, {@code Content-Length} bytes of body), waiting at most
     * {@code wait}; fails when none arrives in time or the connection closes before one is whole.
     */
    Answer read(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        byte[] buffer = new byte[16 * 1024];
        while (true) {
            Answer answer = Answer.parse(pending);
            if (answer != null) {
                pending = Arrays.copyOfRange(pending, answer.length(), pending.length);
                return answer;
            }
            if (closedByServer) {
                throw new AssertionError("the server closed the connection before a whole answer arrived; got: "
                        + new String(pending, StandardCharsets.ISO_8859_1));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no whole answer within " + wait.toMillis() + " ms; got: "
                        + new String(pending, StandardCharsets.ISO_8859_1));
            }
            int read = readSome(buffer, left);
            if (read > 0) {
                byte[] joined = Arrays.copyOf(pending, pending.length + read);
                System.arraycopy(buffer, 0, joined, pending.length, read);
                pending = joined;
            }
        }
    }

    /**
     * Waits until the server closes the connection (end of stream or a reset), at most {@code wait}; whether it did.
     * Bytes arriving meanwhile are kept for {@link #read}.
     */
    /** Sends {@code GET path} (HTTP/1.1, {@code Host: localhost}) and reads its answer within {@code wait}. */
    Answer get(String path, Duration wait) {
        write("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
        return read(wait);
    }

    boolean closedWithin(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        byte[] buffer = new byte[4096];
        while (!closedByServer) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            int read = readSome(buffer, left);
            if (read > 0) {
                byte[] joined = Arrays.copyOf(pending, pending.length + read);
                System.arraycopy(buffer, 0, joined, pending.length, read);
                pending = joined;
            }
        }
        return true;
    }

    /** Reads what arrives within {@code nanos}: the count, 0 on timeout, -1 (and {@link #closedByServer}) at the end. */
    private int readSome(byte[] buffer, long nanos) {
        try {
            socket.setSoTimeout((int) Math.max(1, nanos / 1_000_000));
            int read = in.read(buffer);
            if (read < 0) {
                closedByServer = true;
            }
            return read;
        } catch (SocketTimeoutException e) {
            return 0;
        } catch (IOException e) {
            closedByServer = true; // reset by the server: closed too
            return -1;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the server may have closed it already
        }
    }

    /** An answer: its status, headers in order (names as sent) and body bytes. */
    record Answer(int status, List<String[]> headers, byte[] body, int length) {

        /** The first value of a header, case-insensitively, or null. */
        String header(String name) {
            return headers.stream().filter(header -> header[0].equalsIgnoreCase(name)).map(header -> header[1])
                    .findFirst().orElse(null);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** Parses one answer from the start of {@code bytes}; null when it is not whole yet. */
        static Answer parse(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                return null;
            }
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            List<String[]> headers = new ArrayList<>();
            int length = 0;
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                String name = lines[i].substring(0, colon).strip();
                String value = lines[i].substring(colon + 1).strip();
                headers.add(new String[] {name, value});
                if (name.toLowerCase(Locale.ROOT).equals("content-length")) {
                    length = Integer.parseInt(value);
                }
            }
            if (status == 100) { // an interim answer has no body
                length = 0;
            }
            if (bytes.length < end + 4 + length) {
                return null;
            }
            return new Answer(status, headers, Arrays.copyOfRange(bytes, end + 4, end + 4 + length),
                    end + 4 + length);
        }
    }

    /** Bytes of {@code text} in ISO-8859-1, followed by {@code body}. */
    static byte[] bytes(String text, byte[] body) {
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        joined.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
        joined.writeBytes(body);
        return joined.toByteArray();
    }
}
