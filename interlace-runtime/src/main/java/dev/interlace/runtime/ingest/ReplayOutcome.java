package dev.interlace.runtime.ingest;

import dev.interlace.runtime.stream.FieldError;
import java.util.List;

/**
 * Every way a quarantine replay can end. The HTTP layer maps each to its status code and body in one place; nothing
 * here knows about HTTP.
 */
public sealed interface ReplayOutcome permits ReplayOutcome.Replayed, ReplayOutcome.UnknownStream,
        ReplayOutcome.UnknownSeqs, ReplayOutcome.TooLarge, Backpressured, ReplayOutcome.Unavailable,
        ReplayOutcome.WrongPartition, ReplayOutcome.PartlyReplayed {

    /** The request id the outcome belongs to. */
    String requestId();

    /** What became of one quarantined entry. */
    enum Status {
        /** Valid now and appended to the stream (in a dry run: would be). */
        ACCEPTED,
        /** Valid now, and an event with its idempotency key is already in the stream; marked replayed there. */
        DEDUPLICATED,
        /** Still invalid against the current schema; it stays in the quarantine. */
        INVALID,
        /** Replayed before; nothing was done. */
        ALREADY_REPLAYED
    }

    /**
     * One entry's fate.
     *
     * @param offset its event's offset in the stream: the new one (null in a dry run, where none is taken), the
     *     original's for a duplicate, the earlier replay's; null for an invalid entry
     * @param errors why it is still invalid; empty otherwise
     * @param partition for a stream of several partitions, the partition {@code offset} is in; null otherwise
     */
    record EntryOutcome(long seq, Status status, Long offset, List<FieldError> errors, Integer partition) {
        public EntryOutcome {
            errors = List.copyOf(errors);
        }

        public EntryOutcome(long seq, Status status, Long offset, List<FieldError> errors) {
            this(seq, status, offset, errors, null);
        }

        /** This outcome, its offset in {@code partition}. */
        EntryOutcome in(int partition) {
            return new EntryOutcome(seq, status, offset, errors, partition);
        }
    }

    /**
     * Every entry was decided; durable unless {@code dryRun} (200).
     *
     * @param results one per entry, in the order they were asked for ({@code all}: in sequence order)
     * @param nextAfter for {@code all}: the last sequence number examined, to continue after; null otherwise
     * @param more for {@code all}: whether entries after {@code nextAfter} remain to be examined
     */
    record Replayed(String requestId, List<EntryOutcome> results, boolean dryRun, Long nextAfter, boolean more)
            implements ReplayOutcome {

        public Replayed {
            results = List.copyOf(results);
        }

        public long count(Status status) {
            return results.stream().filter(result -> result.status() == status).count();
        }
    }

    /** No stream of that name is declared (404): a stream dropped from code has no schema to validate against. */
    record UnknownStream(String requestId, String stream) implements ReplayOutcome {}

    /** Some sequence numbers are not in the stream's quarantine (404); nothing was replayed. */
    record UnknownSeqs(String requestId, String stream, List<Long> seqs, long quarantineHead)
            implements ReplayOutcome {
        public UnknownSeqs {
            seqs = List.copyOf(seqs);
        }
    }

    /**
     * The selected entries' events hold more than a publish may carry (413, {@code maxBytes}: the body limit); nothing
     * was replayed. {@code seqs} are the selected numbers from the first that no longer fit.
     */
    record TooLarge(String requestId, String stream, long maxBytes, List<Long> seqs) implements ReplayOutcome {
        public TooLarge {
            seqs = List.copyOf(seqs);
        }
    }

    /**
     * A replay into one partition ({@code partition=}, as one node sends another a partition's part) whose selection
     * has entries whose events go to other partitions, {@code seqs} (400); nothing was replayed.
     */
    record WrongPartition(String requestId, String stream, int partition, List<Long> seqs) implements ReplayOutcome {
        public WrongPartition {
            seqs = List.copyOf(seqs);
        }
    }

    /**
     * A replay into several partitions of which some parts were replayed ({@code replayed}) and the others refused
     * ({@code notReplayed}) as {@code refusal} says ({@link Backpressured} or {@link Unavailable}).
     */
    record PartlyReplayed(String requestId, ReplayOutcome refusal, List<Integer> replayed, List<Integer> notReplayed)
            implements ReplayOutcome {
        public PartlyReplayed {
            replayed = List.copyOf(replayed);
            notReplayed = List.copyOf(notReplayed);
        }
    }

    /**
     * The log cannot make the events durable right now (503): nothing was replayed, or, when {@code mayBeStored}, the
     * replay was under way and may still be committed (repeating it finds the entries replayed).
     */
    record Unavailable(String requestId, String reason, int retryAfterSeconds, boolean mayBeStored)
            implements ReplayOutcome {}
}
