package dev.interlace.runtime.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.interlace.client.ExactJson;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The events of a file or of standard input for {@code interlace publish}: a JSON array of objects, or NDJSON (one
 * object per line), told apart by the first character that is not white space ({@code [} starts an array). Read as
 * a stream, one event at a time, so that files larger than memory can be published.
 *
 * <p>An NDJSON line is sent as it is, byte for byte; an array element is copied exactly (numbers keep their digits:
 * {@code 49.50} stays {@code 49.50}). What is not a JSON object is refused here, with its position, and never sent.
 */
final class EventInput implements AutoCloseable {

    /** Checks lines and splits arrays; no limits beyond the server's, which it applies itself. */
    private static final JsonFactory JSON = ExactJson.unlimitedFactory();

    /**
     * One event of the input.
     *
     * @param index 0-based position among the input's events
     * @param line 1-based line of an NDJSON input, 0 for an array
     * @param payload the event's JSON, or null when it is refused here
     * @param problem why it is refused here, or null
     */
    record Event(int index, int line, byte[] payload, String problem) {

        /** Where the event is in the input, for messages: {@code line 7} or {@code element 7}. */
        String position() {
            return line > 0 ? "line " + line : "element " + (index + 1);
        }
    }

    private final CountingStream counted;
    private final BufferedInputStream in;
    private final boolean array;
    private JsonParser arrayParser;
    private boolean arrayDone;
    private int index;
    private int line;

    EventInput(InputStream input) {
        this.counted = new CountingStream(input);
        this.in = new BufferedInputStream(counted, 64 * 1024);
        this.array = firstSignificantByte() == '[';
    }

    /** Whether the input is a JSON array (else NDJSON). */
    boolean isArray() {
        return array;
    }

    /** Bytes read from the input so far (for progress). */
    long bytesRead() {
        return counted.count;
    }

    /** The next event, or null at the end of the input. */
    Event next() {
        try {
            return array ? nextElement() : nextLine();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the input: " + e.getMessage(), e);
        }
    }

    private int firstSignificantByte() {
        try {
            in.mark(1 << 20);
            int b;
            int skipped = 0;
            do {
                b = in.read();
                skipped++;
            } while (b == ' ' || b == '\t' || b == '\r' || b == '\n' || (b == 0xEF || b == 0xBB || b == 0xBF)
                    && skipped <= 3);
            in.reset();
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the input: " + e.getMessage(), e);
        }
    }

    private Event nextLine() throws IOException {
        while (true) {
            byte[] bytes = readLine();
            if (bytes == null) {
                return null;
            }
            line++;
            if (line == 1 && bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
                    && (bytes[2] & 0xFF) == 0xBF) {
                bytes = Arrays.copyOfRange(bytes, 3, bytes.length); // a byte order mark is not part of the JSON
            }
            if (isBlank(bytes)) {
                continue;
            }
            return new Event(index++, line, bytes, problemOf(bytes));
        }
    }

    /** Why a line is not one JSON object, or null when it is. */
    private static String problemOf(byte[] line) {
        try (JsonParser parser = JSON.createParser(line)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                return "not a JSON object (NDJSON takes one object per line)";
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                return "more than one JSON value on the line";
            }
            return null;
        } catch (JsonProcessingException e) {
            return "not valid JSON: " + e.getOriginalMessage();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next line without its line end, or null at the end of the input. */
    private byte[] readLine() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        int b = in.read();
        if (b < 0) {
            return null;
        }
        while (b >= 0 && b != '\n') {
            bytes.write(b);
            b = in.read();
        }
        byte[] text = bytes.toByteArray();
        return text.length > 0 && text[text.length - 1] == '\r' ? Arrays.copyOf(text, text.length - 1) : text;
    }

    private Event nextElement() throws IOException {
        if (arrayDone) {
            return null;
        }
        try {
            if (arrayParser == null) {
                arrayParser = JSON.createParser(in);
                arrayParser.nextToken(); // the [ found by firstSignificantByte
            }
            JsonToken token = arrayParser.nextToken();
            if (token == JsonToken.END_ARRAY) {
                arrayDone = true;
                if (arrayParser.nextToken() != null) {
                    return new Event(index++, 0, null, "unexpected content after the JSON array; nothing after it"
                            + " was read");
                }
                return null;
            }
            if (token != JsonToken.START_OBJECT) {
                arrayParser.skipChildren();
                return new Event(index++, 0, null, "not a JSON object");
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            try (JsonGenerator copy = JSON.createGenerator(bytes)) {
                copy.copyCurrentStructureExact(arrayParser);
            }
            return new Event(index++, 0, bytes.toByteArray(), null);
        } catch (JsonProcessingException e) {
            arrayDone = true;
            return new Event(index++, 0, null, "not valid JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()
                    + "; nothing after it was read");
        }
    }

    private static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        try {
            if (arrayParser != null) {
                arrayParser.close();
            }
            in.close();
        } catch (IOException e) {
            // Closing what was read to the end (or given up on) loses nothing.
        }
    }

    /** Counts the bytes read through it. */
    private static final class CountingStream extends FilterInputStream {
        private long count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
