package dev.interlace.log.kafka;

import dev.interlace.runtime.log.LogEntry;
import dev.interlace.runtime.log.PayloadAllowance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads of a stream's events on any node: pages after an offset (at once, or waiting for the head to pass it) and the
 * newest events, read from the events topic through the positions the stream's {@link StreamView} knows.
 */
record EventReads(StreamViews views, Topics topics, TopicPages pages) {

    /** The events after {@code afterOffset} there are now (see {@code EventLog#read}). */
    List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, PayloadAllowance allowance) {
        StreamView view = views.find(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.headOffset();
        long from = Math.max(afterOffset + 1, view.earliest());
        return from > head ? List.of() : entries(view, from, Math.min(head, from + limit - 1), maxBytes, allowance,
                Readers.ReadAhead.NONE);
    }

    /** The events after {@code afterOffset}, waiting up to {@code wait} for the first to come. */
    List<LogEntry> read(String stream, long afterOffset, int limit, long maxBytes, Duration wait)
            throws InterruptedException {
        StreamView view = views.find(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            long head = view.headOffset();
            long from = Math.max(afterOffset + 1, view.earliest());
            if (from <= head) {
                // A reader that waits for events goes forward batch by batch (the flusher): its next batch is read
                // ahead while it works on this one, as far as the log holds events after this read (a backlog).
                // Events still to come are not read ahead: a flusher takes those its node acknowledged from memory.
                long through = Math.min(head, from + limit - 1);
                int beyond = (int) Math.min(limit, head - through);
                return entries(view, from, through, maxBytes, PayloadAllowance.UNLIMITED,
                        beyond == 0 ? Readers.ReadAhead.NONE : new Readers.ReadAhead(beyond, maxBytes));
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !view.awaitHeadAbove(Math.max(afterOffset, from - 1), remaining)) {
                return List.of();
            }
        }
    }

    /** The newest events, newest first, within {@code maxBytes} and what {@code allowance} admits. */
    List<LogEntry> latest(String stream, int limit, long maxBytes, PayloadAllowance allowance) {
        StreamView view = views.find(stream);
        if (view == null || limit <= 0) {
            return List.of();
        }
        long head = view.headOffset();
        long from = Math.max(view.earliest(), head - limit + 1);
        // Newest first, one event a read: a record's size is known only once it is fetched, and the newest must be
        // the ones kept when the budget ends the list.
        List<LogEntry> entries = new ArrayList<>();
        long bytes = 0;
        boolean[] refused = {false};
        PayloadAllowance asked = length -> {
            boolean admitted = allowance.admit(length);
            refused[0] = !admitted;
            return admitted;
        };
        for (long offset = head; offset >= from && bytes < maxBytes && !refused[0]; offset--) {
            for (LogEntry entry : entries(view, offset, offset, Long.MAX_VALUE, asked, Readers.ReadAhead.NONE)) {
                entries.add(entry);
                bytes += entry.payload().length;
            }
        }
        return entries;
    }

    /** The events from {@code from} through {@code through}, as {@link TopicPages#read} bounds them. */
    private List<LogEntry> entries(StreamView view, long from, long through, long maxBytes,
            PayloadAllowance allowance, Readers.ReadAhead readAhead) {
        Codec.EntryDecoder decoder = new Codec.EntryDecoder(view.name);
        return pages.read(topics.events(view.name), view, Codec.OFFSET, from, through, maxBytes, offset -> true,
                allowance, readAhead, decoder::entry);
    }
}
