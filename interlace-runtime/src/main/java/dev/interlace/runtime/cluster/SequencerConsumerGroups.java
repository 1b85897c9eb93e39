package dev.interlace.runtime.cluster;

import dev.interlace.runtime.stream.StreamPartitions;

import dev.interlace.client.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.ops.EpochMicros;
import dev.interlace.runtime.ops.RequestIds;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Consumer groups whose lease, commit and release reach the stream's sequencer wherever it runs: the flusher's hold
 * on a stream this node does not sequence (always, on {@code --role warehouse}). While another node sequences the
 * stream, the call goes to that node's consumer route ({@code POST /streams/{name}/consumers/{group}/lease|commit|
 * release}) through {@link Peers}, signed, and its answer is read back into the same {@link Leases} results the log
 * itself gives, fencing tokens included; otherwise, and always on a log without sequencers (SQLite), the local log
 * decides as before. A sequencer that cannot be reached (down, or this node has no cluster secret) is answered like
 * a stream nobody sequences: {@link NoSequencerException}, and the flusher stands by.
 *
 * <p>Only the flusher uses it: the HTTP consumer routes call the local log, since a client's request is forwarded
 * to the sequencer before it reaches them, and a forwarded one is never sent on again.
 */
public final class SequencerConsumerGroups implements ConsumerGroups {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConsumerGroups local;
    private final Optional<Sequencers> sequencers;
    private final Peers peers;
    private final RequestIds ids;
    private final String nodeUrl;
    private final String caller;

    /**
     * @param local the log on this node
     * @param caller the caller id the requests to other nodes carry (the flusher's, which the consumer routes let
     *     use the reserved flush group)
     */
    public SequencerConsumerGroups(ConsumerGroups local, Optional<Sequencers> sequencers, Peers peers,
            RequestIds ids, InterlaceConfig config, String caller) {
        this.local = local;
        this.sequencers = sequencers;
        this.peers = peers;
        this.ids = ids;
        this.nodeUrl = config.advertisedUrl();
        this.caller = caller;
    }

    @Override
    public Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        Optional<String> holder = remoteSequencer(stream);
        if (holder.isEmpty()) {
            return local.lease(stream, group, owner, ttl, actor);
        }
        ObjectNode command = JSON.createObjectNode().put("owner", owner).put("ttl_ms", ttl.toMillis());
        Reply reply = send(holder.get(), stream, group, "lease", command);
        if (reply.status() == 200) {
            Optional<Leases.Token> token = Leases.Token.parse(reply.body().path("token").asText(null));
            if (token.isEmpty()) {
                throw reply.failure(stream, "lease");
            }
            return new Leases.Granted(token.get(),
                    reply.body().path("committed_offset").asLong(), micros(reply.body().path("expires_at")));
        }
        if (reply.is(ErrorCode.LEASE_HELD)) {
            return new Leases.Held(reply.body().path("holder").asText(), micros(reply.body().path("expires_at")));
        }
        if (reply.is(ErrorCode.GROUP_FORBIDDEN)) {
            return new Leases.Forbidden();
        }
        throw reply.failure(stream, "lease");
    }

    @Override
    public Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        Optional<String> holder = remoteSequencer(stream);
        if (holder.isEmpty()) {
            return local.commit(stream, group, token, offset, actor);
        }
        ObjectNode command = JSON.createObjectNode().put("token", String.valueOf(token)).put("offset", offset);
        Reply reply = send(holder.get(), stream, group, "commit", command);
        if (reply.status() == 200) {
            return new Leases.Committed(reply.body().path("committed_offset").asLong());
        }
        if (reply.is(ErrorCode.GROUP_FORBIDDEN)) {
            return new Leases.Forbidden();
        }
        // The routes do not say the current epoch or the expiry; 0 stands for "not told".
        if (reply.is(ErrorCode.STALE_TOKEN)) {
            return new Leases.StaleToken(0);
        }
        if (reply.is(ErrorCode.LEASE_EXPIRED)) {
            return new Leases.LeaseExpired(0);
        }
        if (reply.is(ErrorCode.OFFSET_REGRESSED)) {
            return new Leases.OffsetRegressed(reply.body().path("committed_offset").asLong());
        }
        if (reply.is(ErrorCode.OFFSET_BEYOND_HEAD)) {
            return new Leases.BeyondHead(reply.body().path("head").asLong());
        }
        throw reply.failure(stream, "commit");
    }

    @Override
    public Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        Optional<String> holder = remoteSequencer(stream);
        if (holder.isEmpty()) {
            return local.release(stream, group, token, actor);
        }
        Reply reply = send(holder.get(), stream, group, "release",
                JSON.createObjectNode().put("token", String.valueOf(token)));
        if (reply.status() == 200) {
            return new Leases.Released();
        }
        if (reply.is(ErrorCode.STALE_TOKEN)) {
            return new Leases.StaleToken(0);
        }
        if (reply.is(ErrorCode.GROUP_FORBIDDEN)) {
            return new Leases.Forbidden();
        }
        throw reply.failure(stream, "release");
    }

    /** Granting is an admin's act over HTTP, which reaches the sequencer by forwarding; the flusher never grants. */
    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        return local.grant(stream, group, keyId);
    }

    /** Every node reads the groups from the log. */
    @Override
    public List<Leases.Group> groups(String stream) {
        return local.groups(stream);
    }

    /** The advertised URL of the stream's sequencer when another node holds it. */
    private Optional<String> remoteSequencer(String stream) {
        return sequencers.flatMap(known -> known.holder(stream)).filter(url -> !url.equals(nodeUrl));
    }

    private Reply send(String node, String stream, String group, String operation, ObjectNode command) {
        // A log stream is a stream's partition: the route names the stream and the partition (0 for most).
        String path = "/streams/" + encode(StreamPartitions.streamOf(stream)) + "/consumers/" + encode(group) + "/"
                + operation + "?partition=" + StreamPartitions.partitionOf(stream);
        Peers.Request request;
        try {
            request = new Peers.Request("POST", path, "application/json", JSON.writeValueAsBytes(command),
                    ids.mint(), caller);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Peers.Answer answer;
        try {
            answer = peers.send(node, request);
        } catch (IOException e) {
            throw new NoSequencerException(stream, "the sequencer of stream " + stream + ", " + node
                    + ", cannot be reached: " + e.getMessage(), 1);
        }
        JsonNode body;
        try {
            body = answer.body().length == 0 ? JSON.createObjectNode() : JSON.readTree(answer.body());
        } catch (IOException e) {
            body = JSON.createObjectNode();
        }
        return new Reply(node, answer.status(), body == null ? JSON.createObjectNode() : body, answer);
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static long micros(JsonNode time) {
        return EpochMicros.of(Instant.parse(time.asText()));
    }

    /** A peer's answer to a group operation. */
    private record Reply(String node, int status, JsonNode body, Peers.Answer answer) {

        boolean is(ErrorCode error) {
            return status == error.status() && error.code().equals(body.path("error").asText());
        }

        /**
         * Anything but a decision: the node no longer holds the stream ({@code 503 no_sequencer}), refuses this
         * node ({@code 401 cluster_auth_failed}: another cluster secret) or fails. Each is answered like a stream
         * nobody sequences, so the flusher stands by and asks again later, and its {@code flush_error} says why.
         */
        NoSequencerException failure(String stream, String operation) {
            String reason = status + " " + body.path("error").asText("") + ": " + body.path("message").asText("");
            String retryAfter = answer.headers().entrySet().stream()
                    .filter(entry -> entry.getKey().equalsIgnoreCase("Retry-After"))
                    .map(java.util.Map.Entry::getValue).findFirst().orElse("1");
            int seconds;
            try {
                seconds = Math.max(1, Integer.parseInt(retryAfter.strip()));
            } catch (NumberFormatException e) {
                seconds = 1;
            }
            return new NoSequencerException(stream, "the " + operation + " of stream " + stream
                    + "'s flush lease was not decided by its sequencer " + node + " (" + reason + ")", seconds);
        }
    }
}
