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
 * that node as {@code POST /streams/<stream>?partition=<p>&verbose=true}, signed as {@link Forwarding} signs (one
 * hop: the receiver serves it), and its verbose answer is read back into the part's result.
 */
final class PartForwarding implements RemoteParts {

    private final String self;
    private final Optional<Sequencers> sequencers;
    private final boolean enabled;
    private final Peers peers;
    /** Parts sent on: counted with the requests {@link Forwarding} sends to a sequencer. */
    private final io.micrometer.core.instrument.Counter forwards;

    @Inject
    PartForwarding(InterlaceConfig config, Optional<Sequencers> sequencers, Optional<ForwardSignature> signature,
            Peers peers, io.micrometer.core.instrument.MeterRegistry registry) {
        this.forwards = Forwarding.forwarded(registry, Route.Placement.SEQUENCER);
        this.self = WarehouseStandings.normalised(config.advertisedUrl());
        this.sequencers = sequencers;
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
        return peers.sendAsync(node, request).handle((answer, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                throw new CompletionException(new LogUnavailableException("partition " + partition + " of " + stream
                        + " is sequenced by node " + node + ", which could not be reached (" + cause.getMessage()
                        + "); its part may or may not be stored there", cause));
            }
            return result(node, stream, partition, answer);
        });
    }

    private static AppendResult result(String node, String stream, int partition, Peers.Answer answer) {
        JsonNode body;
        try {
            body = HttpResponses.JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new CompletionException(new LogUnavailableException("node " + node + " answered the part of"
                    + " partition " + partition + " of " + stream + " with " + answer.status() + " and no JSON", e));
        }
        if (answer.status() == 200) {
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
        String code = body.path("error").asText();
        String message = "node " + node + " (partition " + partition + " of " + stream + "): "
                + body.path("message").asText();
        if (code.equals(dev.interlace.client.ErrorCode.BACKPRESSURE.code())) {
            return new Backpressure(body.path("pending").asLong(), 0, body.path("max_pending").asLong());
        }
        if (code.equals(dev.interlace.client.ErrorCode.NO_SEQUENCER.code())) {
            throw new CompletionException(new NoSequencerException(stream, message, 1));
        }
        throw new CompletionException(new LogUnavailableException(message));
    }
}
