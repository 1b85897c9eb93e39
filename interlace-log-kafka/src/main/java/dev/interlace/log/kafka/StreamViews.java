package dev.interlace.log.kafka;

import dev.interlace.runtime.log.PublishRecord;
import dev.interlace.runtime.log.StreamHead;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * This node's view of the log, rebuilt from the topics: a {@link StreamView} per stream, which streams are registered
 * with the log here, which stream each followed topic holds, and the records the {@link Tailer} reads applied to them
 * (and to the {@link PublishStore} and this node's {@link LocalKeys}).
 */
final class StreamViews {

    private final Topics topics;
    private final PublishStore publishes;
    /** The keys of the keyed streams' events on this node's disk, if it may sequence streams (else null). */
    private final LocalKeys localKeys;
    /** Told the stream whose head a record the tailer read moved. */
    private final Consumer<String> appended;
    private final Map<String, StreamView> views = new ConcurrentHashMap<>();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    /** Which stream and kind each followed topic holds. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    /** Where the views find the positions of events older than their tailer read. */
    private final PositionSearch search;

    private record Route(String stream, boolean quarantine) {}

    StreamViews(Topics topics, PublishStore publishes, LocalKeys localKeys, Consumer<String> appended) {
        this.topics = topics;
        this.publishes = publishes;
        this.localKeys = localKeys;
        this.appended = appended;
        this.search = new PositionSearch(topics);
    }

    /** How the views find the positions of events older than their tailer read. */
    PositionSearch search() {
        return search;
    }

    /** The view of {@code stream}, made empty when none is yet (records of a stream may come before it registers). */
    StreamView view(String stream) {
        return views.computeIfAbsent(stream, name -> new StreamView(name, 0, search));
    }

    /** The view of {@code stream}, or null when this node has seen nothing of it. */
    StreamView find(String stream) {
        return views.get(stream);
    }

    /** The view of a stream registered with the log here; a stream that is not is the caller's mistake. */
    StreamView registeredView(String stream) {
        StreamView view = views.get(stream);
        if (view == null || !registered.contains(stream)) {
            throw new IllegalArgumentException("stream " + stream + " is not registered with the log");
        }
        return view;
    }

    boolean isRegistered(String stream) {
        return registered.contains(stream);
    }

    /** {@code stream} is registered once the tailer read its topics up to their ends. */
    void registered(String stream) {
        registered.add(stream);
    }

    Collection<StreamView> all() {
        return views.values();
    }

    /** From now on, the records of {@code stream}'s events and quarantine topics are applied to its view. */
    void route(String stream) {
        routes.put(topics.events(stream).topic(), new Route(stream, false));
        routes.put(topics.quarantine(stream).topic(), new Route(stream, true));
    }

    /** The stream whose events or quarantine {@code topic} holds, or null for a topic no registration routed yet. */
    String streamOf(String topic) {
        Route route = routes.get(topic);
        return route == null ? null : route.stream();
    }

    /** The head of each registered stream. */
    Map<String, StreamHead> heads() {
        Map<String, StreamHead> heads = new TreeMap<>();
        for (String stream : registered) {
            heads.put(stream, views.get(stream).head());
        }
        return heads;
    }

    /** Applies one record the tailer read. */
    void apply(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        if (topic.equals(topics.publishes().topic())) {
            if (record.value() == null) {
                publishes.applyTombstone(Codec.text(record.key()), record.offset());
            } else if (!publishes.readByTailer(record.offset())) {
                publishes.apply(Codec.text(record.key()), Codec.json(record.value(), PublishRecord.class),
                        record.value(), record.offset(), false);
            }
        } else if (topic.equals(topics.state().topic())) {
            applyState(record);
        } else {
            Route route = routes.get(topic);
            if (route == null) {
                return;
            }
            StreamView view = view(route.stream());
            if (route.quarantine()) {
                view.applyQuarantine(Codec.longHeader(record.headers(), Codec.SEQ), record.offset());
            } else {
                long before = view.headOffset();
                long offset = Codec.longHeader(record.headers(), Codec.OFFSET);
                long at = Codec.longHeader(record.headers(), Codec.AT);
                view.applyEvent(offset, record.offset(), at, Codec.longHeader(record.headers(), Codec.LAST));
                if (localKeys != null && view.keyed()) {
                    localKeys.saw(route.stream(), offset, at, record.key(), view.trimmedThrough());
                }
                if (view.headOffset() > before) {
                    appended.accept(route.stream());
                }
            }
        }
    }

    /** A record of {@code _state}: a consumer group's state, a trim point or a replay mark. */
    private void applyState(ConsumerRecord<byte[], byte[]> record) {
        String key = Codec.text(record.key());
        if (record.value() == null) {
            return;
        }
        if (key.startsWith("group/")) {
            Codec.GroupState state = Codec.json(record.value(), Codec.GroupState.class);
            view(state.stream()).applyGroup(state, record.offset());
        } else if (key.startsWith("trim/")) {
            Codec.TrimPoint trim = Codec.json(record.value(), Codec.TrimPoint.class);
            view(trim.stream()).applyTrim(trim.throughOffset());
        } else if (key.startsWith("replay/")) {
            Codec.ReplayMark mark = Codec.json(record.value(), Codec.ReplayMark.class);
            view(mark.stream()).applyReplay(mark);
        }
    }
}
