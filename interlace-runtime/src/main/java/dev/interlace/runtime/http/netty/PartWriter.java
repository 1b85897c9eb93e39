package dev.interlace.runtime.http.netty;

import dev.interlace.runtime.http.HttpAnswer;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.Future;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

/**
 * Writes a streamed answer ({@link HttpAnswer.Parts}) with chunked transfer encoding: its head, then each part once
 * the one before it is written to the socket, then the last chunk. Asking for a part only when the one before is
 * written is the backpressure: a reader that reads slowly makes the answer wait, holding one part, instead of making
 * the server buffer the whole answer. A part that the reader does not take within the stall limit closes the
 * connection, and so does a part that cannot be produced: the response then lacks its last chunk, so that no client
 * takes a cut answer for a whole one.
 */
final class PartWriter {

    private final Channel channel;
    private final HttpAnswer.Parts parts;
    private final long stallNanos;
    private final ChannelPromise done;
    private ScheduledFuture<?> stall;
    private boolean over;

    private PartWriter(Channel channel, HttpAnswer.Parts parts, Duration stallLimit) {
        this.channel = channel;
        this.parts = parts;
        this.stallNanos = stallLimit.toNanos();
        this.done = channel.newPromise();
    }

    /**
     * Writes {@code head} and then every part of {@code parts}, on the channel's event loop; the future completes
     * once the last chunk is written, or fails once the answer is given up (its connection is then closed).
     */
    static ChannelFuture write(Channel channel, HttpResponse head, HttpAnswer.Parts parts, Duration stallLimit) {
        PartWriter writer = new PartWriter(channel, parts, stallLimit);
        channel.writeAndFlush(head).addListener(written -> writer.written(written, null));
        return writer.done;
    }

    /** The head or a part is written (or failed to be): gives back the part's bytes, then asks for the next one. */
    private void written(Future<?> written, HttpAnswer.Part part) {
        if (stall != null) {
            stall.cancel(false);
            stall = null;
        }
        if (part != null) {
            part.written().run();
        }
        if (!written.isSuccess()) {
            fail(written.cause());
            return;
        }
        CompletableFuture<HttpAnswer.Part> next;
        try {
            next = parts.next();
        } catch (RuntimeException e) { // no worker takes it (the server is stopping)
            next = CompletableFuture.failedFuture(e);
        }
        next.whenComplete((nextPart, failure) -> channel.eventLoop().execute(() -> send(nextPart, failure)));
    }

    private void send(HttpAnswer.Part part, Throwable failure) {
        if (failure != null) {
            NettyTransport.log().log(Level.WARNING, "an answer was cut after its head was sent: its next part"
                    + " could not be read; closing the connection without the last chunk", failure);
            fail(failure);
            return;
        }
        if (!channel.isActive()) {
            if (part != null) {
                part.written().run();
            }
            fail(new ClosedChannelException());
            return;
        }
        if (part == null) {
            channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(written -> {
                if (written.isSuccess()) {
                    finish();
                    done.trySuccess();
                } else {
                    fail(written.cause());
                }
            });
            return;
        }
        stall = channel.eventLoop().schedule(() -> {
            NettyTransport.log().fine("closing a connection whose reader took no part of its answer within "
                    + stallNanos / 1_000_000_000 + " s");
            channel.close();
        }, stallNanos, TimeUnit.NANOSECONDS);
        channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(part.bytes().toArray(ByteBuffer[]::new))))
                .addListener(written -> written(written, part));
    }

    private void fail(Throwable cause) {
        finish();
        channel.close();
        done.tryFailure(cause);
    }

    private void finish() {
        if (!over) {
            over = true;
            parts.close();
        }
    }
}
