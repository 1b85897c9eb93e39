package dev.interlace.log.kafka;

import dev.interlace.runtime.log.ConsumerGroups;
import dev.interlace.runtime.log.GroupRules;
import dev.interlace.runtime.log.Leases;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The consumer groups of the Kafka log: what {@link GroupRules} decides is run on the stream's sequencer, which
 * stores a group's new state on {@code _state}; every node reads the groups from its {@link StreamView}s.
 */
record KafkaConsumerGroups(StreamViews views, SequencerPlacement placement, Topics topics) implements ConsumerGroups {

    @Override
    public Leases.LeaseResult lease(String stream, String group, String owner, Duration ttl, Leases.Actor actor) {
        return change(stream, group, "lease", (view, now) ->
                GroupRules.lease(stream, group, view.groupState(group), owner, ttl, actor, now));
    }

    @Override
    public Leases.CommitResult commit(String stream, String group, Leases.Token token, long offset,
            Leases.Actor actor) {
        return change(stream, group, "commit", (view, now) ->
                GroupRules.commit(view.groupState(group), token, offset, view.headOffset(), actor, now));
    }

    @Override
    public Leases.ReleaseResult release(String stream, String group, Leases.Token token, Leases.Actor actor) {
        return change(stream, group, "release", (view, now) ->
                GroupRules.release(view.groupState(group), token, actor, now));
    }

    @Override
    public Leases.Group grant(String stream, String group, String keyId) {
        return change(stream, group, "grant", (view, now) ->
                GroupRules.grant(stream, group, view.groupState(group), keyId));
    }

    /** What {@link GroupRules} decides of a group, given the stream's view and the sequencer's clock (µs). */
    @FunctionalInterface
    private interface Rule<T> {
        GroupRules.Decision<T> decide(StreamView view, long now);
    }

    /**
     * Decides on the stream's sequencer what {@code rule} says of the group, stores it and answers; a rule reads the
     * group and the head, never the keys, so a sequencer still opening its index decides it.
     */
    private <T> T change(String stream, String group, String what, Rule<T> rule) {
        StreamView view = views.registeredView(stream);
        return placement.await(stream, what + " " + stream + "/" + group, false,
                sequencer -> sequencer.controlReadingNoKeys(now -> write(view, rule.decide(view, now))));
    }

    @Override
    public List<Leases.Group> groups(String stream) {
        StreamView view = views.find(stream);
        return view == null ? List.of() : view.groups();
    }

    /**
     * A decision that stores the group's new state on {@code _state} and applies it to the view once committed;
     * only an answer when nothing changes.
     */
    private <T> ControlDecision<T> write(StreamView view, GroupRules.Decision<T> decision) {
        if (decision.next() == null) {
            return ControlDecision.answerOnly(decision.answer());
        }
        Codec.GroupState state = Codec.GroupState.of(decision.next());
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.state().topic(), 0,
                Codec.text(Codec.groupKey(state.stream(), state.group())), Codec.json(state));
        return new ControlDecision<>(decision.answer(), List.of(record),
                position -> view.applyGroup(state, position), () -> state.equals(view.storedGroup(state.group())));
    }
}
