package dev.interlace.runtime.http.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The rest of a request refused before its body was read whole, read and thrown away so that a client still sending
 * it reads the answer rather than a connection reset: the connection closes once the answer is written and the body
 * has ended (or passed {@code --max-body-bytes}); the {@link Connection} closes it anyway after
 * {@link Connection#DISCARD_SECONDS}. Used on the connection's event loop only.
 */
final class RefusedBody {

    private final Channel channel;
    private final long limit;
    private long bytes;
    private boolean answered;
    private boolean ended;

    RefusedBody(Channel channel, long limit) {
        this.channel = channel;
        this.limit = limit;
    }

    /** The refusal's answer was written, or failed to be: the connection closes if nothing more is to be read. */
    void answered(boolean written) {
        answered = true;
        if (ended || !written) {
            channel.close();
        }
    }

    /** Counts {@code received} bytes of the body that arrived before the refusal. */
    void before(long received) {
        bytes = received;
    }

    /** Throws away {@code content}; whether the body has ended (then the connection closes once answered). */
    boolean take(HttpContent content) {
        bytes += content.content().readableBytes();
        if (content instanceof LastHttpContent || bytes > limit) {
            ended = true;
            if (answered) {
                channel.close();
            }
        }
        return ended;
    }
}
