package dev.interlace.runtime.ingest;

/**
 * The limits a publish is held to: body size, events per request, backlog and disk floor.
 *
 * @param maxBodyBytes the largest body accepted, measured after gzip decompression
 * @param maxEventsPerRequest the most events in one request
 * @param maxPending the most entries of one stream waiting to be materialised
 * @param minFreeDiskBytes below this much free space on the data directory's disk, publishes are refused
 */
public record IngestLimits(long maxBodyBytes, int maxEventsPerRequest, long maxPending, long minFreeDiskBytes) {}
