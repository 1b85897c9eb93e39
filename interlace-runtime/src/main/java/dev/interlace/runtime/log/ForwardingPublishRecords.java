package dev.interlace.runtime.log;

import java.util.List;

/**
 * {@link PublishRecords} answered by another instance: a log whose publish records are read by a collaborator
 * implements this and names the collaborator once instead of forwarding each call itself. A follower, which does not
 * own the records' retention, overrides {@link #trimPublishes} to trim nothing.
 */
public interface ForwardingPublishRecords extends PublishRecords {

    /** The instance every call of {@link PublishRecords} goes to. */
    PublishRecords publishRecords();

    @Override
    default PublishRecord.Page publishes(PublishRecord.Filter filter) {
        return publishRecords().publishes(filter);
    }

    @Override
    default List<String> traceIds(String stream, long afterOffset, long throughOffset) {
        return publishRecords().traceIds(stream, afterOffset, throughOffset);
    }

    @Override
    default long trimPublishes(long beforeMicros) {
        return publishRecords().trimPublishes(beforeMicros);
    }
}
