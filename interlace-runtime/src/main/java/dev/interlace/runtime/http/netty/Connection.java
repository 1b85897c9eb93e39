package dev.interlace.runtime.http.netty;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.http.HttpAnswer;
import dev.interlace.runtime.http.HttpDispatcher;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.InflightBytes;
import dev.interlace.runtime.http.HttpRequest;
import dev.interlace.runtime.http.netty.Turn.Complete;
import dev.interlace.runtime.http.netty.Turn.Refused;
import dev.interlace.runtime.ops.FatalErrors;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

/**
 * One connection's life: reads each request whole within the limits, hands it to the dispatcher, writes the answer,
 * and closes the connection of a client that is too slow, too large or idle too long. Everything but the answer's
 * completion runs on the connection's event loop, so no field needs a lock.
 *
 * <p>A body is reserved against the in-flight budget from its {@code Content-Length} before it is read (a chunked
 * one as its chunks arrive); a request that does not fit is answered {@code 503 overloaded} before its body is read.
 * A request refused before its body is read whole (too large, overloaded) gets its answer with
 * {@code Connection: close} while the rest of its body is read and thrown away, within {@code --max-body-bytes} and
 * {@link #DISCARD_SECONDS}: a client still sending would otherwise get a connection reset instead of the answer.
 *
 * <p>A request reaches the dispatcher only when it is well formed and whole: a chunked body whose framing breaks, a
 * request line of another HTTP version, control bytes in the target or a second {@code Host} are refused here, and
 * the connection is closed, since nothing after a framing error can be trusted to start a request. Every request on
 * the connection gets an answer, in order: one that arrives while {@link #MAX_PIPELINED} wait is refused
 * {@code 429 too_many_pipelined} in its turn, and a refusal decided while an earlier request is being answered waits
 * behind it rather than cutting it off. Pipelined requests wait to be served, except on another node's authenticated
 * session ({@link dev.interlace.runtime.http.PeerSession}): its requests come from many clients and are served at once.
 *
 * <p>A streamed answer (a large page of events) is written by {@link PartWriter}, chunk by chunk as the reader takes
 * them; the request's turn ends when its last chunk is written, or when the answer is given up and the connection
 * closed.
 */
final class Connection extends ChannelInboundHandlerAdapter {

    /**
     * Requests read ahead while one is being answered (HTTP pipelining); each one beyond waits as a refusal of a few
     * hundred bytes. Reading stops while anything waits, so what waits is bounded by one read from the socket.
     */
    private static final int MAX_PIPELINED = 16;

    /** Longest a refused request's remaining body is read and thrown away before the connection closes. */
    static final int DISCARD_SECONDS = 5;

    private enum Reading { IDLE, HEADERS, BODY, DISCARDING, CLOSING }

    private final Channel channel;
    private final HttpLimits limits;
    private final HttpDispatcher dispatcher;
    private final InflightBytes budget;
    private final ConnectionShares shares;
    /** What the connection may do: everything, or only {@code /health/*} when it opened over a connection limit. */
    private final ConnectionShares.Admission admission;
    /** Whether a connection holding a place in the reserve has sent a byte (it then keeps the place). */
    private boolean spoke;
    private final ArrayDeque<Turn> waiting = new ArrayDeque<>();
    private final ConnectionDeadline deadline;
    /** What the connection proved of the cluster secret: another node's session has its requests served at once. */
    private final dev.interlace.runtime.http.PeerSession session = new dev.interlace.runtime.http.PeerSession();

    private Reading reading = Reading.IDLE;
    private io.netty.handler.codec.http.HttpRequest head;
    private IncomingBody body;
    /** The body of a request refused while it arrived, being thrown away. */
    private RefusedBody refusedBody;
    private boolean answering;
    /** The client closed its sending half: what it sent whole is answered, then the connection closes. */
    private boolean inputShutdown;
    private volatile boolean writing;
    private final Runnable written;

    Connection(Channel channel, HttpLimits limits, HttpDispatcher dispatcher, InflightBytes budget,
            ConnectionShares shares, ConnectionShares.Admission admission, Runnable written) {
        this.written = written;
        this.channel = channel;
        this.limits = limits;
        this.dispatcher = dispatcher;
        this.budget = budget;
        this.shares = shares;
        this.admission = admission;
        this.deadline = new ConnectionDeadline(channel, limits, this::deadlinePassed);
    }

    /** Whether {@code channel} has an answer being computed or written (shutdown waits for those). */
    static boolean isWriting(Channel channel) {
        Connection connection = channel.pipeline().get(Connection.class);
        return connection != null && connection.writing;
    }

    /** Sits before the HTTP decoder: the first byte of a request starts the clock on its headers. */
    ChannelHandler firstByteWatcher() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext context, Object message) {
                if (reading == Reading.IDLE) {
                    if (admission.healthOnly() && !spoke) {
                        spoke = true;
                        shares.spoke(channel);
                    }
                    reading = Reading.HEADERS;
                    if (!answering) {
                        deadline.armHeaders();
                    }
                }
                context.fireChannelRead(message);
            }
        };
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        deadline.arm(limits.firstRequestTimeout(), null); // a connection that sends nothing is closed in seconds
        context.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        deadline.cancel();
        discardBody();
        reading = Reading.CLOSING;
        for (Turn turn : waiting) {
            if (turn instanceof Complete complete) {
                complete.hold().release();
            } else if (turn instanceof Turn.Dispatched dispatched) {
                dispatched.answer().whenComplete((answer, failure) -> dispatched.request().hold().release());
            }
        }
        waiting.clear();
        context.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        try {
            if (reading == Reading.CLOSING) {
                return;
            }
            if (reading == Reading.DISCARDING) {
                discard(message);
                return;
            }
            if (message instanceof io.netty.handler.codec.http.HttpRequest request) {
                startBody(request);
            }
            if (message instanceof HttpContent content && head != null) {
                if (content.decoderResult().isFailure()) {
                    refuseAndClose(head.method().name(), head.uri(), ErrorCode.BAD_REQUEST, "the request body's "
                            + "framing is broken (" + HttpWire.printable(String.valueOf(content.decoderResult().cause()
                                    .getMessage()), 200) + "); nothing of it was read");
                } else {
                    append(content);
                }
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    /**
     * The client closed its sending half (a TCP FIN): it may still read, so the requests it sent whole are answered
     * before the connection closes (reading goes on while one is answered: the end of the input often comes first).
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event == ConnectionShares.EVICTED) {
            if (!spoke && reading == Reading.IDLE && !answering) {
                shares.refused(admission);
                refuseAndClose(null, null, ErrorCode.TOO_MANY_CONNECTIONS, admission.message() + "; this connection"
                        + " sent nothing and a newer one from your address took its place", "1");
            }
            return;
        }
        if (event instanceof ChannelInputShutdownEvent) {
            inputShutdown = true;
            if (!answering && reading != Reading.CLOSING) {
                channel.close(); // nothing to answer, and no request can come whole any more
            }
        }
        context.fireUserEventTriggered(event);
    }

    private void startBody(io.netty.handler.codec.http.HttpRequest request) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpLineException) {
                refuseAndClose(null, null, ErrorCode.URI_TOO_LONG, "the request line is longer than "
                        + limits.maxUrlBytes() + " bytes");
            } else if (cause instanceof TooLongHttpHeaderException) {
                refuseAndClose(request.method().name(), request.uri(), ErrorCode.HEADERS_TOO_LARGE,
                        "the request headers are larger than " + limits.maxHeaderBytes() + " bytes");
            } else {
                refuseAndClose(null, null, ErrorCode.BAD_REQUEST, "the request is not valid HTTP/1.1: "
                        + HttpWire.printable(String.valueOf(cause.getMessage()), 200));
            }
            return;
        }
        deadline.disarm();
        head = request;
        String malformed = HttpWire.malformed(request);
        if (malformed != null) {
            boolean version = request.protocolVersion().majorVersion() != 1;
            refuseBeforeBody(version ? ErrorCode.HTTP_VERSION_NOT_SUPPORTED : ErrorCode.BAD_REQUEST,
                    malformed, null);
            return;
        }
        long declared = HttpUtil.getContentLength(request, -1L);
        if (declared > limits.maxBodyBytes()) {
            refuseBeforeBody(ErrorCode.PAYLOAD_TOO_LARGE, "the body is " + declared + " bytes; the limit is "
                    + limits.maxBodyBytes() + " bytes", null);
            return;
        }
        InflightBytes.Hold hold = budget.hold();
        if (declared > 0 && !hold.reserve(declared * InflightBytes.BODY_COPIES)) {
            hold.release();
            refuseBeforeBody(ErrorCode.OVERLOADED, overloaded(), "1");
            return;
        }
        body = new IncomingBody(channel.alloc(), hold);
        reading = Reading.BODY;
        if (!answering) {
            deadline.armBody();
        }
        if (HttpUtil.is100ContinueExpected(request)) {
            channel.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        }
    }

    private void append(HttpContent content) {
        int size = content.content().readableBytes();
        if (size > 0) {
            long received = body.bytes();
            if (received + size > limits.maxBodyBytes()) {
                refuseBeforeBody(ErrorCode.PAYLOAD_TOO_LARGE, "the body is larger than the limit of "
                        + limits.maxBodyBytes() + " bytes", null);
                discardRest(received, content);
                return;
            }
            if (!body.add(content.content())) { // a body without a Content-Length is reserved as it arrives
                refuseBeforeBody(ErrorCode.OVERLOADED, overloaded(), "1");
                discardRest(received, content);
                return;
            }
        }
        if (content instanceof LastHttpContent) {
            finishReading();
        }
    }

    private void finishReading() {
        deadline.disarm();
        if (answering && waiting.size() >= MAX_PIPELINED) {
            waiting.add(new Refused(head.method().name(), HttpWire.forRecord(head.uri()),
                    ErrorCode.TOO_MANY_PIPELINED,
                    MAX_PIPELINED + " requests already wait on this connection for the answers before them; send"
                            + " this one again once those have arrived", "1", HttpUtil.isKeepAlive(head)));
            discardBody();
            reading = Reading.IDLE;
            return;
        }
        Complete complete = body.complete(head, session);
        body = null;
        head = null;
        reading = Reading.IDLE;
        if (answering && session.authenticated()) {
            // Another node's requests come from many clients: served at once, answered in turn.
            waiting.add(new Turn.Dispatched(complete, dispatcher.dispatch(complete.request())));
            if (waiting.size() >= MAX_PIPELINED) {
                channel.config().setAutoRead(false);
            }
            return;
        }
        if (answering) {
            waiting.add(complete);
            // A pipelined request: read no further until those before it are answered (the socket's buffer holds
            // what comes next). Reading goes on while a request is answered only until then, so a client that does
            // not pipeline costs no change of the socket's interest per request.
            channel.config().setAutoRead(false);
            return;
        }
        answer(complete);
    }

    private void answer(Turn turn) {
        answering = true;
        writing = true;
        if (turn instanceof Refused refused) {
            write(refused.answer(dispatcher), refused.keepAlive(), false, null);
            return;
        }
        if (turn instanceof Turn.Dispatched dispatched) {
            writeWhenDone(dispatched.request(), dispatched.answer());
            return;
        }
        Complete complete = (Complete) turn;
        if (admission.healthOnly()) {
            answerHealthOnly(complete);
            return;
        }
        writeWhenDone(complete, dispatcher.dispatch(complete.request()));
    }

    private void writeWhenDone(Complete complete, java.util.concurrent.CompletableFuture<HttpAnswer> answered) {
        answered.whenComplete((answer, failure) -> channel.eventLoop().execute(() ->
                write(answer != null ? answer : dispatcher.refuse(complete.request().method(),
                        complete.request().rawPath(), ErrorCode.INTERNAL, "the server failed"), complete.keepAlive(),
                        complete.http10(), complete.hold())));
    }

    /**
     * On a connection opened over a connection limit: {@code /health/*} is answered, anything else refused 503
     * {@code too_many_connections}; either way the connection closes after this one answer.
     */
    private void answerHealthOnly(Complete complete) {
        HttpRequest request = complete.request();
        String path = request.rawPath();
        if (path.equals("/health") || path.startsWith("/health/")) {
            dispatcher.dispatch(request).whenComplete((answer, failure) -> channel.eventLoop().execute(() ->
                    write(answer != null ? answer : dispatcher.refuse(request.method(), path, ErrorCode.INTERNAL,
                            "the server failed"), false, complete.http10(), complete.hold())));
            return;
        }
        shares.refused(admission);
        write(dispatcher.refuse(request.method(), path, ErrorCode.TOO_MANY_CONNECTIONS, admission.message()
                + "; /health/* is still served").header("Retry-After", "1"), false, false, complete.hold());
    }

    /**
     * Writes the answer to the request whose turn it is, then starts the next one's; the connection stays open after
     * it when the request allows it and something may still follow (a request waiting, or more input to come).
     *
     * @param http10 whether the request came as HTTP/1.0: a streamed answer to it cannot be chunked, so it ends by
     *     closing the connection
     * @param hold what the request holds of the in-flight budget, released once the answer is written; null for none
     */
    private void write(HttpAnswer answer, boolean requestKeepAlive, boolean http10, InflightBytes.Hold hold) {
        boolean nothingMayFollow = waiting.isEmpty() && (reading == Reading.CLOSING || inputShutdown);
        boolean keepAlive = requestKeepAlive && !nothingMayFollow && !(http10 && answer.parts() != null)
                && !"close".equalsIgnoreCase(answer.headers().get("Connection"));
        ChannelFuture sent = answer.parts() == null ? channel.writeAndFlush(HttpWire.response(answer, keepAlive))
                : PartWriter.write(channel, HttpWire.streamedHead(answer, keepAlive, !http10), answer.parts(),
                        limits.idleTimeout());
        sent.addListener((ChannelFutureListener) written -> {
            if (hold != null) {
                hold.release();
            }
            answering = false;
            writing = false;
            this.written.run();
            if (!keepAlive || !written.isSuccess()) {
                channel.close();
                return;
            }
            Turn next = waiting.poll();
            if (next != null) {
                answer(next);
                return;
            }
            if (inputShutdown) { // the input ended while this answer was written
                channel.close();
                return;
            }
            channel.config().setAutoRead(true);
            if (reading == Reading.IDLE) {
                deadline.arm(limits.idleTimeout(), null);
            } else if (reading == Reading.HEADERS) {
                deadline.armHeaders();
            } else if (reading == Reading.BODY) {
                deadline.armBody();
            }
        });
    }

    /**
     * Answers a refusal decided here (not by a route) and closes the connection once it is written; nothing more is
     * read. While an earlier request is being answered, the refusal waits for its turn behind those before it.
     */
    private void refuseAndClose(String method, String target, ErrorCode error, String message) {
        refuseAndClose(method, target, error, message, null);
    }

    private void refuseAndClose(String method, String target, ErrorCode error, String message,
            String retryAfter) {
        deadline.disarm();
        discardBody();
        reading = Reading.CLOSING;
        channel.config().setAutoRead(false);
        Refused refused = new Refused(method, HttpWire.forRecord(target), error, message, retryAfter, false);
        if (answering) {
            waiting.add(refused);
            return;
        }
        answer(refused);
    }

    /**
     * Refuses the request being read before its body is read whole: answers at once with {@code Connection: close},
     * then reads and throws away the rest of the body (at most {@code --max-body-bytes}, for at most
     * {@link #DISCARD_SECONDS}) so that a client still sending it reads the answer rather than a reset, and closes.
     */
    private void refuseBeforeBody(ErrorCode error, String message, String retryAfter) {
        String method = head.method().name();
        String target = head.uri();
        boolean bodyWillCome = !HttpUtil.is100ContinueExpected(head);
        if (answering || !bodyWillCome) {
            refuseAndClose(method, target, error, message, retryAfter);
            return;
        }
        deadline.disarm();
        discardBody();
        reading = Reading.DISCARDING;
        RefusedBody discarding = new RefusedBody(channel, limits.maxBodyBytes());
        refusedBody = discarding;
        HttpAnswer answer = new Refused(method, HttpWire.forRecord(target), error, message, retryAfter, false)
                .answer(dispatcher);
        channel.writeAndFlush(HttpWire.response(answer, false)).addListener((ChannelFutureListener) written ->
                discarding.answered(written.isSuccess()));
        channel.eventLoop().schedule(() -> channel.close(), DISCARD_SECONDS, TimeUnit.SECONDS);
    }

    /** Throws away a part of a refused request's body; the connection closes after its last part or the limit. */
    private void discard(Object message) {
        if (message instanceof HttpContent content && refusedBody.take(content)) {
            reading = Reading.CLOSING;
        }
    }

    /** After a refusal in the middle of a body: counts what came before, and throws away the part at hand. */
    private void discardRest(long received, HttpContent content) {
        if (reading == Reading.DISCARDING) {
            refusedBody.before(received);
            discard(content);
        }
    }

    private String overloaded() {
        return "the server holds " + budget.held() + " bytes for requests in flight, its limit being "
                + budget.limit() + " (--max-inflight-bytes); nothing was read or stored, retry shortly";
    }

    /** The deadline passed: an idle connection closes, a request still arriving is refused 408. */
    private void deadlinePassed(String message) {
        if (message == null) {
            if (reading == Reading.IDLE && !answering) {
                channel.close(); // a keep-alive connection nobody uses: nothing to answer
            }
        } else if (!answering && (reading == Reading.HEADERS || reading == Reading.BODY)) {
            String method = head == null ? null : head.method().name();
            String target = head == null ? null : head.uri();
            refuseAndClose(method, target, ErrorCode.REQUEST_TIMEOUT, message);
        }
    }

    private void discardBody() {
        if (body != null) {
            body.release();
            body = null;
        }
        head = null;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        FatalErrors.exitIfFatal(cause);
        boolean clientSide = cause instanceof IOException || cause instanceof javax.net.ssl.SSLException
                || cause.getCause() instanceof javax.net.ssl.SSLException
                || cause instanceof io.netty.handler.ssl.NotSslRecordException;
        if (clientSide) { // a client that went away, or failed its TLS handshake: its problem, not the server's
            NettyTransport.log().log(Level.FINE, "closing a connection: " + cause);
        } else {
            NettyTransport.log().log(Level.WARNING, "closing a connection after an unexpected failure", cause);
        }
        context.close();
    }
}
