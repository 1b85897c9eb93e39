package dev.interlace.runtime.records;

import java.util.List;

/**
 * One system record, kept in {@code records.sqlite}: something the process did or noticed on its own.
 *
 * @param seq the record's number, increasing (0 until stored)
 * @param atMicros when, epoch microseconds
 * @param event what happened: a {@link SysEvent}'s wire name (records stored by another version may carry others)
 * @param stream the stream concerned, or null
 * @param id the id of the work that caused it: a sentinel id ({@code boot-}, {@code flush-}, {@code run-},
 *     {@code sched-}, {@code component-}) or the request id of the request that did
 * @param message what happened, for people
 */
public record SysRecord(long seq, long atMicros, String event, String stream, String id, String message) {

    /** A record to be stored (its number is given when it is). */
    public static SysRecord of(long atMicros, SysEvent event, String stream, String id, String message) {
        return new SysRecord(0, atMicros, event.wire(), stream, id, message);
    }

    /**
     * Which records to list: every non-null field must match exactly; times are a half-open window
     * {@code [sinceMicros, untilMicros)}.
     */
    public record Filter(String event, String stream, String id, Long sinceMicros, Long untilMicros, int limit) {}

    /** A page of records, newest first, with how many matched in all. */
    public record Page(List<SysRecord> records, long total) {}
}
