package dev.interlace.runtime.log;

import java.util.Optional;

/**
 * Who appends to each stream, on a log where one node at a time sequences a stream (the Kafka log); not bound on
 * the SQLite log, where the one server always does.
 */
public interface Sequencers {

    /** The URL of the node holding {@code stream}'s sequencer, empty while none does (a takeover is under way). */
    Optional<String> holder(String stream);

    /** Whether this node's sequencer of {@code stream} serves right now; answered at once, never waiting. */
    default boolean sequencesHere(String stream) {
        return false;
    }
}
