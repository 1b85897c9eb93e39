package dev.interlace.runtime.http;

import dev.interlace.runtime.log.EventLog;
import dev.interlace.runtime.ops.Workers;
import dev.interlace.runtime.stream.StreamCatalog;
import jakarta.inject.Inject;

/**
 * What the routes that answer pages of a stream's stored events share ({@code /streams/{name}}, its quarantine, its
 * events): the catalog of declared streams, the log the pages are read from, the slots that bound how many are read
 * at once, and the workers a {@link StreamedPage} reads its later batches on.
 */
record EventPages(StreamCatalog catalog, EventLog log, PageSlots slots, Workers workers) {

    @Inject
    EventPages {}
}
