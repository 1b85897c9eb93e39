package dev.interlace.runtime.http.netty;

import dev.interlace.runtime.http.HttpAnswer;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * What a {@link Connection} puts on the wire and what it takes from it, as pure functions: an answer as Netty's
 * response (whole or the head of a streamed one, or raw bytes on a channel without a codec), and the checks of a
 * request head that no route should ever see (its HTTP version, control bytes in its target, its {@code Host}
 * headers), with the escaping of client text kept in records.
 */
final class HttpWire {

    /** Longest request target kept in a refusal's record. */
    private static final int MAX_TARGET_IN_REFUSAL = 256;

    private HttpWire() {}

    /** {@code answer} whole, with its {@code Content-Length}. */
    static FullHttpResponse response(HttpAnswer answer, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
        answer.headers().forEach((name, value) -> response.headers().set(name, value));
        response.headers().set(HttpHeaderNames.CONNECTION,
                keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        return response;
    }

    /**
     * The head of a streamed answer: chunked, so that a response cut short is seen as cut; to an HTTP/1.0 request
     * (never kept alive) without it, the body ending when the connection closes.
     */
    static HttpResponse streamedHead(HttpAnswer answer, boolean keepAlive, boolean chunked) {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
        answer.headers().forEach((name, value) -> response.headers().set(name, value));
        if (chunked) {
            response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        response.headers().set(HttpHeaderNames.CONNECTION,
                keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        return response;
    }

    /** Writes an answer on a channel that has no HTTP codec (a connection refused as it opened), then closes. */
    static void writeRaw(Channel channel, HttpAnswer answer) {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(answer.status()).append(' ')
                .append(HttpResponseStatus.valueOf(answer.status()).reasonPhrase()).append("\r\n")
                .append("Content-Type: ").append(answer.contentType()).append("\r\n")
                .append("Content-Length: ").append(answer.body().length).append("\r\n");
        answer.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Connection: close\r\n\r\n");
        channel.writeAndFlush(Unpooled.wrappedBuffer(head.toString().getBytes(StandardCharsets.ISO_8859_1),
                answer.body())).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Why a request whose head was read cannot be served, or null when it can: an HTTP version other than 1.x (served
     * as 1.1 it would be misunderstood), control bytes in its target (they reach records and terminals as they are),
     * more than one {@code Host} (which one the checks saw and which one a proxy used could differ), or none in an
     * HTTP/1.1 request (the {@code Host} check would have nothing to check).
     */
    static String malformed(io.netty.handler.codec.http.HttpRequest request) {
        HttpVersion version = request.protocolVersion();
        if (version.majorVersion() != 1) {
            return "HTTP/" + version.majorVersion() + "." + version.minorVersion() + " is not supported; this"
                    + " server speaks HTTP/1.1 (and 1.0)";
        }
        String target = request.uri();
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return "the request target contains the control byte 0x" + String.format("%02X", (int) c)
                        + "; percent-encode it";
            }
        }
        int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1) {
            return "the request has " + hosts + " Host headers; send one";
        }
        if (hosts == 0 && version.minorVersion() >= 1) {
            return "an HTTP/1.1 request must have a Host header (the checks against DNS rebinding read it)";
        }
        return null;
    }
    /** A request target as a refusal's record may keep it: control bytes percent-encoded, cut; null stays null. */
    static String forRecord(String target) {
        return target == null ? null : printable(target, MAX_TARGET_IN_REFUSAL);
    }

    /**
     * {@code text} cut to {@code max} characters with its control bytes percent-encoded ({@code %1B}): what a client
     * sent goes into records that an operator reads on a terminal, where raw escapes would be obeyed.
     */
    static String printable(String text, int max) {
        String cut = text.length() <= max ? text : text.substring(0, max) + "…";
        StringBuilder escaped = null;
        for (int i = 0; i < cut.length(); i++) {
            char c = cut.charAt(i);
            boolean control = c < 0x20 || c == 0x7f;
            if (control && escaped == null) {
                escaped = new StringBuilder(cut.length() + 8).append(cut, 0, i);
            }
            if (escaped != null) {
                if (control) {
                    escaped.append('%').append(String.format("%02X", (int) c));
                } else {
                    escaped.append(c);
                }
            }
        }
        return escaped == null ? cut : escaped.toString();
    }
}
