package dev.interlace.test;

import java.util.List;

/**
 * What the server did with one event of a publish, as {@code POST /streams/{name}?verbose=true} answers it.
 *
 * @param index the event's position in the request, from 0
 * @param status {@code accepted}, {@code duplicate} or {@code quarantined}
 * @param offset the event's offset in the stream (for a duplicate, the original's), null when quarantined
 * @param errors each field error as {@code "field: reason"}, empty when the event was valid
 */
public record Verdict(int index, String status, Long offset, List<String> errors) {

    public boolean accepted() {
        return status.equals("accepted");
    }

    public boolean duplicate() {
        return status.equals("duplicate");
    }

    public boolean quarantined() {
        return status.equals("quarantined");
    }
}
