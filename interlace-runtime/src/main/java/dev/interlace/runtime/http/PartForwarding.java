package dev.interlace.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.interlace.runtime.cluster.ForwardSignature;
import dev.interlace.runtime.cluster.Peers;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.ingest.RemoteParts;
import dev.interlace.runtime.log.AppendResult;
import dev.interlace.runtime.log.Backpressure;
import dev.interlace.runtime.log.LogUnavailableException;
import dev.interlace.runtime.log.NoSequencerException;
import dev.interlace.runtime.log.ReplayResult;
import dev.interlace.runtime.log.Sequencers;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@link RemoteParts} in a cluster: a part of a partitioned publish whose partition another node sequences goes to
 * that node as {@code POST /streams/<stream>?partition=<p>&verbose=true}, a part of a quarantine replay as
 * {@code POST /streams/<stream>/quarantine/replay?partition=<p>} with its sequence numbers, signed as
 * {@link Forwarding} signs (one hop: the receiver serves it), and the answer is read back into the part's result.
 */
final class PartForwarding implements RemoteParts {

    private final String self;
    private final Optional<Sequencers> sequencers;
    private final boolean enabled;
    private final Peers peers;
    /** Parts sent on: counted with the requests {@link Forwarding} sends to a sequencer. */
    private final io.micrometer.core.instrument.Counter forwards;

    @Inject
    PartForwarding(InterlaceConfig config, ClusterRoles roles, Optional<ForwardSignature> signature,
            Peers peers, io.micrometer.core.instrument.MeterRegistry registry) {
        this.forwards = Forwarding.forwarded(registry, Route.Placement.SEQUENCER);
        this.self = WarehouseStandings.normalised(config.advertisedUrl());
        this.sequencers = roles.sequencers();
        this.enabled = signature.isPresent();
        this.peers = peers;
    }

    @Override
    public Optional<String> holderElsewhere(String logStream) {
        if (!enabled || sequencers.isEmpty()) {
            return Optional.empty(); // appended here: the log answers no_sequencer, naming the holder
        }
        return sequencers.get().holder(logStream).filter(holder -> !WarehouseStandings.normalised(holder).equals(self));
    }

    @Override
    public CompletableFuture<AppendResult> append(String node, String stream, int partition, String requestId,
            List<byte[]> payloads, String keyId, String keyName) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] payload : payloads) {
            body.writeBytes(payload);
            body.write('\n');
        }
        Peers.Request request = new Peers.Request("POST", "/streams/" + stream + "?" + PartitionParameter.NAME + "="
                + partition + "&verbose=true", "application/x-ndjson", body.toByteArray(), requestId, keyId,
                keyName, null, null);
        forwards.increment();
        return peers.sendAsync(node, request).handle((answer, failure) -> result(node, stream, partition,
                answer(node, stream, partition, answer, failure)));
    }

    @Override
    public CompletableFuture<ReplayResult> replay(String node, String stream, int partition, String requestId,
            List<Long> seqs, boolean dryRun, String keyId, String keyName) {
        com.fasterxml.jackson.databind.node.ObjectNode command = HttpResponses.JSON.createObjectNode();
        seqs.forEach(command.putArray("seqs")::add);
        command.put("dry_run", dryRun);
        Peers.Request request = new Peers.Request("POST", "/streams/" + stream + "/quarantine/replay?"
                + PartitionParameter.NAME + "=" + partition, "application/json",
                command.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), requestId, keyId, keyName,
                null, null);
        forwards.increment();
        return peers.sendAsync(node, request).handle((answer, failure) -> replayed(node, stream, partition,
                answer(node, stream, partition, answer, failure)));
    }

    /** The answer's JSON body, or the failure to send or read it as the log's exception. */
    private static JsonNode answer(String node, String stream, int partition, Peers.Answer answer,
            Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            throw new CompletionException(LogUnavailableException.outcomeUnknown("partition " + partition + " of "
                    + stream + " is sequenced by node " + node + ", which could not be reached ("
                    + cause.getMessage() + ")", cause));
        }
        try {
            return HttpResponses.JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new CompletionException(new LogUnavailableException("node " + node + " answered the part of"
                    + " partition " + partition + " of " + stream + " with " + answer.status() + " and no JSON", e));
        }
    }

    /** A replay part's answer: each entry's result, or the refusal as a local replay gives it. */
    private static ReplayResult replayed(String node, String stream, int partition, JsonNode body) {
        if (body.path("results").isArray() && !body.has("error")) {
            List<ReplayResult.EntryResult> entries = new ArrayList<>();
            for (JsonNode result : body.path("results")) {
                ReplayResult.Status status = switch (result.path("status").asText()) {
                    case "accepted" -> ReplayResult.Status.ACCEPTED;
                    case "deduplicated" -> ReplayResult.Status.DUPLICATE;
                    case "already_replayed" -> ReplayResult.Status.ALREADY_REPLAYED;
                    // Valid here and not there: the nodes run different schemas (a deployment under way).
                    default -> throw new CompletionException(new LogUnavailableException("node " + node
                            + " finds quarantined entry " + result.path("seq").asLong() + " of " + stream + " "
                            + result.path("status").asText() + " (partition " + partition + "); its part was not"
                            + " replayed"));
                };
                entries.add(new ReplayResult.EntryResult(result.path("seq").asLong(), status,
                        result.path("offset").asLong()));
            }
            return new ReplayResult.Replayed(entries, body.path("dry_run").asBoolean());
        }
        return refusal(node, stream, partition, body);
    }

    private static AppendResult result(String node, String stream, int partition, JsonNode body) {
        if (!body.has("error")) {
            List<AppendResult.EntryResult> entries = new ArrayList<>();
            for (JsonNode result : body.path("results")) {
                AppendResult.Status status = switch (result.path("status").asText()) {
                    case "accepted" -> AppendResult.Status.ACCEPTED;
                    case "duplicate" -> AppendResult.Status.DUPLICATE;
                    default -> AppendResult.Status.QUARANTINED;
                };
                entries.add(new AppendResult.EntryResult(status, status == AppendResult.Status.QUARANTINED
                        ? result.path("quarantine_seq").asLong() : result.path("offset").asLong()));
            }
            return new AppendResult.Committed(entries, 0);
        }
        return refusal(node, stream, partition, body);
    }

    /** An error answer as the log's: backpressure as the result, anything else thrown. */
    private static Backpressure refusal(String node, String stream, int partition, JsonNode body) {
        String code = body.path("error").asText();
        String message = "node " + node + " (partition " + partition + " of " + stream + "): "
                + body.path("message").asText();
        if (code.equals(dev.interlace.client.ErrorCode.BACKPRESSURE.code())) {
            return new Backpressure(body.path("pending").asLong(), 0, body.path("max_pending").asLong());
        }
        if (code.equals(dev.interlace.client.ErrorCode.NO_SEQUENCER.code())) {
            throw new CompletionException(new NoSequencerException(stream, message, 1));
        }
        throw new CompletionException(body.path("may_be_stored").asBoolean()
                ? LogUnavailableException.outcomeUnknown(message, null) : new LogUnavailableException(message));
    }
}
