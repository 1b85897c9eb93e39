package dev.interlace.runtime.log;

/**
 * Told when a stream's log advanced (new events or quarantined events committed). Called on the log's writer
 * thread right after the commit: implementations only signal, never block.
 */
@FunctionalInterface
public interface AppendListener {

    void appended(String stream);
}
