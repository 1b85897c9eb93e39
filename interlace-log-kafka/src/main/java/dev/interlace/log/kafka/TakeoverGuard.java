package dev.interlace.log.kafka;

/**
 * Whether this node may take a stream over now (see {@link Sequencer}). A takeover fences whoever holds the stream, so
 * only the node the sequencer group assigns the stream to may take it; a node that was cut off from the cluster still
 * believes it holds its streams until it hears from the group again, and its takeover would fence the rightful holder.
 */
@FunctionalInterface
interface TakeoverGuard {
    /**
     * Why this node must not take {@code stream} over now (it then waits and asks again), or null when it may;
     * with {@code confirm}, the group's coordinator is asked whether the group assigns it here, rather than
     * trusting the assignment this node last heard of.
     */
    String refusal(String stream, boolean confirm);
}
