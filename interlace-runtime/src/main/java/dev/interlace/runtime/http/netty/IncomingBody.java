package dev.interlace.runtime.http.netty;

import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.InflightBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpUtil;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of the request a {@link Connection} is reading, and what it holds of the in-flight budget: reserved from
 * the {@code Content-Length} before the body arrives, or (chunked) as its parts do. Used on the connection's event
 * loop only.
 */
final class IncomingBody {

    private final CompositeByteBuf parts;
    private final InflightBytes.Hold hold;
    private long bytes;

    /** A body holding {@code hold}, which it releases with itself unless the request is {@link #complete}d. */
    IncomingBody(ByteBufAllocator allocator, InflightBytes.Hold hold) {
        this.parts = allocator.compositeBuffer(Integer.MAX_VALUE);
        this.hold = hold;
    }

    /** The bytes received so far. */
    long bytes() {
        return bytes;
    }

    /** Adds {@code content}, reserving for it what the declared length did not; false, adding nothing, over budget. */
    boolean add(ByteBuf content) {
        int size = content.readableBytes();
        long unreserved = (bytes + size) * InflightBytes.BODY_COPIES - hold.bytes();
        if (unreserved > 0 && !hold.reserve(unreserved)) {
            return false;
        }
        bytes += size;
        parts.addComponent(true, content.retain());
        return true;
    }

    /** The request whole, under {@code head}: the hold goes with it, the parts are released. */
    Turn.Complete complete(io.netty.handler.codec.http.HttpRequest head,
            dev.interlace.runtime.http.PeerSession session) {
        byte[] body = ByteBufUtil.getBytes(parts);
        parts.release();
        // One pass over the header lines (names() and getAll(name) walk them again for every name).
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> header : head.headers()) {
            headers.computeIfAbsent(header.getKey(), name -> new ArrayList<>(1)).add(header.getValue());
        }
        return new Turn.Complete(new HttpRequest(head.method().name(), head.uri(), headers, body, hold, session),
                HttpUtil.isKeepAlive(head), head.protocolVersion().minorVersion() == 0, hold);
    }

    /** The request will not be served: its parts and its hold are released. */
    void release() {
        parts.release();
        hold.release();
    }
}
