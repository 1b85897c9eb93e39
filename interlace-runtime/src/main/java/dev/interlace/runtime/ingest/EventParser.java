package dev.interlace.runtime.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.DuplicateFieldException;
import dev.interlace.runtime.stream.EventDecoder;
import dev.interlace.runtime.stream.EventJson;
import dev.interlace.runtime.stream.StreamEvent;
import dev.interlace.runtime.stream.Values;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits a request body into events and decodes each with the stream's decoder in the same pass, keeping every
 * event's bytes exactly as sent.
 *
 * <p>Bodies are a JSON object, a JSON array of objects, or NDJSON (one object per line; blank lines are skipped),
 * in UTF-8. Jackson would read a UTF-16 or UTF-32 body too, guessing its encoding from the first bytes, but then its
 * offsets count characters rather than bytes and the events' bytes cannot be sliced out of the body: such a body is
 * refused, naming its encoding, before a parser is made.
 */
final class EventParser {

    /**
     * One event of the body.
     *
     * @param index 0-based position among the body's events
     * @param line 1-based line of an NDJSON body, 0 for JSON
     * @param payload the event's bytes as sent
     * @param result its decoding
     */
    record ParsedEvent(int index, int line, byte[] payload, DecodeResult<? extends StreamEvent> result) {}

    /** Why a body cannot be read as events; nothing of it is stored. */
    static final class BodyException extends Exception {
        private static final long serialVersionUID = 1L;

        final PublishOutcome.BadBody problem;

        BodyException(PublishOutcome.BadBody problem) {
            super(problem.message(), null, false, false);
            this.problem = problem;
        }
    }

    private final EventDecoder<? extends StreamEvent> decoder;
    private final int maxEvents;

    EventParser(EventDecoder<? extends StreamEvent> decoder, int maxEvents) {
        this.decoder = decoder;
        this.maxEvents = maxEvents;
    }

    List<ParsedEvent> parse(byte[] body, BodyFormat format) throws BodyException {
        return format == BodyFormat.NDJSON ? parseNdjson(body) : parseJson(body);
    }

    private List<ParsedEvent> parseJson(byte[] body) throws BodyException {
        List<ParsedEvent> events = new ArrayList<>();
        int index = 0;
        JsonParser parser = null;
        refuseIfNotUtf8(body, 0, body.length, 0);
        try {
            parser = EventJson.FACTORY.createParser(body);
            JsonToken first = parser.nextToken();
            if (first == null) {
                return events;
            }
            if (first == JsonToken.START_OBJECT) {
                events.add(decode(parser, body, 0, 0, 0));
                index = 1;
            } else if (first == JsonToken.START_ARRAY) {
                for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
                    if (token != JsonToken.START_OBJECT) {
                        throw new BodyException(PublishOutcome.BadBody.notAnObject(index, 0, describe(token)));
                    }
                    checkCount(index + 1);
                    events.add(decode(parser, body, 0, index, 0));
                    index++;
                }
            } else {
                throw new BodyException(PublishOutcome.BadBody.notAnObject(0, 0, describe(first)
                        + "; send an object, an array of objects or NDJSON"));
            }
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw new BodyException(PublishOutcome.BadBody.malformed(index, 0,
                        "unexpected content after the JSON value (for one event per line use"
                                + " Content-Type: application/x-ndjson)"));
            }
        } catch (DuplicateFieldException e) {
            throw new BodyException(PublishOutcome.BadBody.duplicateField(index, 0, e.field()));
        } catch (StreamConstraintsException e) {
            throw new BodyException(PublishOutcome.BadBody.malformed(index, 0, EventJson.limitExceeded(e, parser)));
        } catch (JsonProcessingException e) {
            throw new BodyException(PublishOutcome.BadBody.malformed(index, 0, e.getOriginalMessage()
                    + at(e.getLocation(), true)));
        } catch (IOException e) {
            throw new IllegalStateException("unreachable: parsing an in-memory body", e);
        } finally {
            closeQuietly(parser);
        }
        return events;
    }

    private List<ParsedEvent> parseNdjson(byte[] body) throws BodyException {
        List<ParsedEvent> events = new ArrayList<>();
        int lineStart = 0;
        int line = 0;
        while (lineStart < body.length) {
            line++;
            int lineEnd = lineStart;
            while (lineEnd < body.length && body[lineEnd] != '\n') {
                lineEnd++;
            }
            int contentEnd = lineEnd > lineStart && body[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
            if (!isBlank(body, lineStart, contentEnd)) {
                int index = events.size();
                checkCount(index + 1);
                events.add(parseLine(body, lineStart, contentEnd, index, line));
            }
            lineStart = lineEnd + 1;
        }
        return events;
    }

    private ParsedEvent parseLine(byte[] body, int start, int end, int index, int line) throws BodyException {
        JsonParser parser = null;
        refuseIfNotUtf8(body, start, end, line);
        try {
            parser = EventJson.FACTORY.createParser(body, start, end - start);
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new BodyException(PublishOutcome.BadBody.notAnObject(index, line, describe(first)));
            }
            ParsedEvent event = decode(parser, body, start, index, line);
            if (parser.nextToken() != null) {
                throw new BodyException(PublishOutcome.BadBody.malformed(index, line,
                        "more than one JSON value on the line; NDJSON takes one object per line"));
            }
            return event;
        } catch (DuplicateFieldException e) {
            throw new BodyException(PublishOutcome.BadBody.duplicateField(index, line, e.field()));
        } catch (StreamConstraintsException e) {
            throw new BodyException(PublishOutcome.BadBody.malformed(index, line, EventJson.limitExceeded(e, parser)));
        } catch (JsonProcessingException e) {
            throw new BodyException(PublishOutcome.BadBody.malformed(index, line, e.getOriginalMessage()
                    + at(e.getLocation(), false)));
        } catch (IOException e) {
            throw new IllegalStateException("unreachable: parsing an in-memory body", e);
        } finally {
            closeQuietly(parser);
        }
    }

    /** Where a parse error is, when Jackson knows: " at line L, column C" (NDJSON: the column on its line). */
    private static String at(JsonLocation location, boolean withLine) {
        if (location == null) {
            return "";
        }
        return withLine ? " at line " + location.getLineNr() + ", column " + location.getColumnNr()
                : " at column " + location.getColumnNr();
    }

    private static void closeQuietly(JsonParser parser) {
        if (parser != null) {
            try {
                parser.close();
            } catch (IOException e) {
                // An in-memory parser has nothing to release.
            }
        }
    }

    /** Decodes the object at the parser's START_OBJECT and slices its bytes out of the body. */
    private ParsedEvent decode(JsonParser parser, byte[] body, int base, int index, int line) throws IOException {
        int start = base + (int) parser.currentTokenLocation().getByteOffset();
        DecodeResult<? extends StreamEvent> result = decoder.decode(parser);
        int end = base + (int) parser.currentLocation().getByteOffset();
        return new ParsedEvent(index, line, Arrays.copyOfRange(body, start, end), result);
    }

    /**
     * Refuses the bytes from {@code start} to {@code end} when they begin the way UTF-16 or UTF-32 text does: a byte
     * order mark, or a zero byte among the first four, which is where Jackson looks. UTF-8 JSON never has a zero byte
     * outside a string nor an {@code FE} or {@code FF} byte anywhere, so no valid body is refused.
     */
    private static void refuseIfNotUtf8(byte[] body, int start, int end, int line) throws BodyException {
        int length = Math.min(4, end - start);
        boolean suspect = false;
        for (int i = start; i < start + length; i++) {
            int b = body[i] & 0xff;
            suspect |= b == 0x00 || b == 0xfe || b == 0xff;
        }
        if (suspect) {
            throw new BodyException(PublishOutcome.BadBody.notUtf8(line, encoding(body, start, length)));
        }
    }

    /** The encoding that text starting with these bytes is in, as a byte order mark or zero bytes tell it. */
    private static String encoding(byte[] body, int start, int length) {
        int[] b = new int[4];
        for (int i = 0; i < 4; i++) {
            b[i] = i < length ? body[start + i] & 0xff : -1;
        }
        boolean bom = (b[0] == 0xfe && b[1] == 0xff) || (b[0] == 0xff && b[1] == 0xfe)
                || (b[0] == 0 && b[1] == 0 && b[2] == 0xfe && b[3] == 0xff);
        String withBom = bom ? " with a byte order mark" : "";
        if (b[0] == 0 && b[1] == 0 && (b[2] == 0xfe || b[2] == 0)) {
            return "UTF-32BE" + withBom;
        }
        if (b[0] == 0xff && b[1] == 0xfe && b[2] == 0 && b[3] == 0) {
            return "UTF-32LE" + withBom;
        }
        if (b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) {
            return "UTF-32LE";
        }
        if (b[0] == 0xfe && b[1] == 0xff || b[0] == 0 && b[1] != 0) {
            return "UTF-16BE" + withBom;
        }
        if (b[0] == 0xff && b[1] == 0xfe || b[0] != 0 && b[1] == 0) {
            return "UTF-16LE" + withBom;
        }
        return "not UTF-8";
    }

    private void checkCount(int count) throws BodyException {
        if (count > maxEvents) {
            throw new BodyException(PublishOutcome.BadBody.tooManyEvents(maxEvents));
        }
    }

    private static boolean isBlank(byte[] body, int start, int end) {
        for (int i = start; i < end; i++) {
            byte b = body[i];
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private static String describe(JsonToken token) {
        return "expected a JSON object, got " + Values.describe(token);
    }
}
