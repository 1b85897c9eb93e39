package dev.interlace.runtime.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Decompresses a {@code Content-Encoding: gzip} body whole and exactly: one or more gzip members (RFC 1952), each
 * checked against its CRC-32 and length, and nothing after the last. {@link java.util.zip.GZIPInputStream} stops
 * quietly at bytes that do not start a member, so a body with something appended would be taken for the part before
 * it; here that is an error, as a broken member is.
 */
final class GzipBody {

    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final int RESERVED = 0xe0;

    private GzipBody() {}

    /** Decompressed bytes reserved at a time: a few reservations for a large body, one for a small one. */
    static final int RESERVATION_STEP = 256 * 1024;

    /** Asks the in-flight budget for bytes before they are held. */
    @FunctionalInterface
    interface Budget {
        /** Whether {@code bytes} more may be held now; false reserves nothing. */
        boolean reserve(long bytes);
    }

    /** The decompressed body would hold more of the in-flight budget than it has free now. */
    static final class OverBudget extends Exception {
        OverBudget(long decompressed) {
            super(decompressed + " bytes decompressed", null, false, false);
        }
    }

    /**
     * The decompressed body, or null when it is longer than {@code limit} bytes once decompressed (decompression
     * stops there, so a small body that inflates without end costs no more than the limit).
     *
     * <p>A small compressed body can stand for a large one: the decompressed bytes, and the events decoded from them
     * ({@link InflightBytes#BODY_COPIES} copies in all), are reserved from {@code budget} step by step as they are
     * inflated, before they are held, so that many small uploads cannot take the heap between them.
     *
     * @throws IOException with the reason when the body is not gzip data, is cut short, or has bytes after its end
     * @throws OverBudget when the budget refuses the next step; what was reserved stays with the request
     */
    static byte[] decompress(byte[] compressed, long limit, Budget budget) throws IOException, OverBudget {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long reservedFor = 0;
        byte[] buffer = new byte[16 * 1024];
        Inflater inflater = new Inflater(true);
        try {
            int position = 0;
            do {
                position = afterHeader(compressed, position);
                inflater.reset();
                inflater.setInput(compressed, position, compressed.length - position);
                CRC32 crc = new CRC32();
                long size = 0;
                while (!inflater.finished()) {
                    int inflated = inflater.inflate(buffer);
                    if (inflated == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                        throw new IOException("the gzip data ends before its last block");
                    }
                    long needed = out.size() + (long) inflated;
                    if (needed > limit) {
                        return null;
                    }
                    if (needed > reservedFor) {
                        long step = Math.min(Math.max(RESERVATION_STEP, needed - reservedFor), limit - reservedFor);
                        if (!budget.reserve(step * InflightBytes.BODY_COPIES)) {
                            throw new OverBudget(needed);
                        }
                        reservedFor += step;
                    }
                    crc.update(buffer, 0, inflated);
                    size += inflated;
                    out.write(buffer, 0, inflated);
                }
                position = compressed.length - inflater.getRemaining();
                if (compressed.length - position < 8) {
                    throw new IOException("the gzip data ends before its trailer");
                }
                if (littleEndian32(compressed, position) != crc.getValue()) {
                    throw new IOException("the gzip data's CRC-32 does not match its content");
                }
                if (littleEndian32(compressed, position + 4) != (size & 0xffffffffL)) {
                    throw new IOException("the gzip data's length does not match its content");
                }
                position += 8;
            } while (position < compressed.length && startsMember(compressed, position));
            if (position < compressed.length) {
                throw new IOException((compressed.length - position) + " bytes come after the gzip data;"
                        + " send the compressed body alone");
            }
            return out.toByteArray();
        } catch (DataFormatException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            inflater.end();
        }
    }

    private static boolean startsMember(byte[] bytes, int at) {
        return bytes.length - at >= 2 && (bytes[at] & 0xff) == 0x1f && (bytes[at + 1] & 0xff) == 0x8b;
    }

    /** Where the compressed data of the member whose header starts at {@code at} begins. */
    private static int afterHeader(byte[] bytes, int at) throws IOException {
        if (bytes.length - at < 10 || !startsMember(bytes, at)) {
            throw new IOException("not in gzip format");
        }
        if (bytes[at + 2] != 8) {
            throw new IOException("unsupported gzip compression method " + bytes[at + 2]);
        }
        int flags = bytes[at + 3] & 0xff;
        if ((flags & RESERVED) != 0) {
            throw new IOException("the gzip header sets reserved flags");
        }
        int position = at + 10;
        if ((flags & FEXTRA) != 0) {
            need(bytes, position, 2);
            position += 2 + ((bytes[position] & 0xff) | (bytes[position + 1] & 0xff) << 8);
        }
        if ((flags & FNAME) != 0) {
            position = afterZero(bytes, position);
        }
        if ((flags & FCOMMENT) != 0) {
            position = afterZero(bytes, position);
        }
        if ((flags & FHCRC) != 0) {
            position += 2;
        }
        need(bytes, position, 0);
        return position;
    }

    private static int afterZero(byte[] bytes, int position) throws IOException {
        while (position < bytes.length && bytes[position] != 0) {
            position++;
        }
        need(bytes, position, 1);
        return position + 1;
    }

    private static void need(byte[] bytes, int position, int count) throws IOException {
        if (position + count > bytes.length) {
            throw new IOException("the gzip header ends early");
        }
    }

    private static long littleEndian32(byte[] bytes, int at) {
        return (bytes[at] & 0xffL) | (bytes[at + 1] & 0xffL) << 8 | (bytes[at + 2] & 0xffL) << 16
                | (bytes[at + 3] & 0xffL) << 24;
    }
}
