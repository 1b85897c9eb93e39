package dev.interlace.runtime.log.tck;

import static dev.interlace.runtime.log.Leases.Actor.SERVER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.log.AppendRequest;
import dev.interlace.runtime.log.Leases;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.testing.Pause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of {@link dev.interlace.runtime.log.ConsumerGroups}: leases and commits.
 *
 * <p>It specifies exclusive leases with strictly increasing fencing tokens, renewal, expiry from the clock and
 * release; groups independent per stream and listed by name; durable tokens and committed offsets; every commit
 * refusal (stale token, expired, released, backwards, past the head) and that a refusal changes nothing; and
 * competing leasers.
 *
 * <p>Run it through {@link StreamLogContract}, which a backend extends; it is abstract so that it runs only
 * there.
 */
public abstract class ConsumerGroupsContract extends LogContractSupport {

    // ================================================================== leases: exclusivity and tokens

    @Test
    void aLeaseIsGrantedWithTheCommittedOffsetAndAnExpiryFromTheClock() {
        StreamLog log = open();
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(granted.token().epoch()).isPositive();
        assertThat(granted.committedOffset()).isZero();
        assertThat(granted.expiresAtMicros()).isEqualTo(clock.micros() + TTL.toNanos() / 1_000);
        assertThat(log.groups(CLICKS.name())).containsExactly(
                new Leases.Group(CLICKS.name(), "g", 0, granted.token().epoch(), "w1", null, granted.expiresAtMicros(),
                        granted.token().secret(), List.of()));
    }

    @Test
    void aLeaseIsExclusiveUntilItExpires() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER))
                .isEqualTo(new Leases.Held("w1", first.expiresAtMicros()));
        clock.advance(TTL.minusSeconds(1));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER))
                .isEqualTo(new Leases.Held("w1", first.expiresAtMicros()));
        clock.advance(Duration.ofSeconds(2));
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER));
        assertThat(second.token().epoch()).isGreaterThan(first.token().epoch());
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER))
                .isEqualTo(new Leases.Held("w2", second.expiresAtMicros()));
    }

    @Test
    void theHolderRenewsWithTheSameTokenAndALaterExpiry() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        clock.advance(Duration.ofSeconds(20));
        Leases.Granted renewed = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(renewed.token()).isEqualTo(first.token());
        assertThat(renewed.expiresAtMicros()).isEqualTo(clock.micros() + TTL.toNanos() / 1_000)
                .isGreaterThan(first.expiresAtMicros());
        // The renewal holds past the first expiry.
        clock.advance(Duration.ofSeconds(20));
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER))
                .isEqualTo(new Leases.Held("w1", renewed.expiresAtMicros()));
    }

    @Test
    void aHolderWhoseLeaseExpiredGetsANewTokenWhenItLeasesAgain() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        clock.advance(TTL.plusSeconds(1));
        Leases.Granted again = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(again.token().epoch()).isGreaterThan(first.token().epoch());
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 0, SERVER)).isInstanceOf(Leases.StaleToken.class);
    }

    @Test
    void releaseFreesTheLeaseAtOnceOnlyForTheCurrentToken() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.release(CLICKS.name(), "g", new Leases.Token(first.token().epoch() + 1, first.token().secret()), SERVER))
                .isInstanceOf(Leases.StaleToken.class);
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER)).isInstanceOf(Leases.Held.class);
        assertThat(log.release(CLICKS.name(), "g", first.token(), SERVER)).isInstanceOf(Leases.Released.class);

        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER));
        assertThat(second.token().epoch()).isGreaterThan(first.token().epoch());
        assertThat(log.release(CLICKS.name(), "g", first.token(), SERVER)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER))
                .isEqualTo(new Leases.Held("w2", second.expiresAtMicros()));
        assertThat(log.release(CLICKS.name(), "never-leased", new Leases.Token(1, "AAAAAAAAAAAAAAAAAAAAAA"), SERVER))
                .isInstanceOf(Leases.StaleToken.class);
    }

    @Test
    void groupsAreIndependentPerStreamAndGroupAndListedByName() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"), keyless("y"));
        append(log, ORDERS, event("a"));
        Leases.Granted zulu = grant(log.lease(CLICKS.name(), "zulu", "w1", TTL, SERVER));
        Leases.Granted alpha = grant(log.lease(CLICKS.name(), "alpha", "w2", TTL, SERVER));
        Leases.Granted orders = grant(log.lease(ORDERS.name(), "zulu", "w3", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "zulu", zulu.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));
        assertThat(log.commit(CLICKS.name(), "alpha", alpha.token(), 1, SERVER)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(ORDERS.name(), "zulu", orders.token(), 1, SERVER)).isEqualTo(new Leases.Committed(1));

        assertThat(log.groups(CLICKS.name())).extracting(Leases.Group::group, Leases.Group::committedOffset,
                Leases.Group::holder).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("alpha", 1L, "w2"),
                        org.assertj.core.groups.Tuple.tuple("zulu", 2L, "w1"));
        assertThat(log.groups(ORDERS.name())).extracting(Leases.Group::group, Leases.Group::holder)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("zulu", "w3"));
        assertThat(log.groups(LEDGER.name())).isEmpty();
    }

    @Test
    void tokensIncreaseStrictlyAcrossEveryTakeover() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"));
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 12; i++) {
            Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w" + (i % 3), TTL, SERVER));
            assertThat(granted.token().epoch()).as("takeover %d", i).isGreaterThan(previous);
            assertThat(grant(log.lease(CLICKS.name(), "g", "w" + (i % 3), TTL, SERVER)).token())
                    .isEqualTo(granted.token());
            switch (i % 3) {
                case 0 -> assertThat(log.release(CLICKS.name(), "g", granted.token(), SERVER))
                        .isInstanceOf(Leases.Released.class);
                case 1 -> clock.advance(TTL.plusMillis(1));
                default -> {
                    assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER))
                            .isEqualTo(new Leases.Committed(1));
                    clock.advance(TTL.multipliedBy(10));
                }
            }
            previous = granted.token().epoch();
        }
        long last = previous;
        assertThat(log.groups(CLICKS.name())).singleElement()
                .satisfies(group -> assertThat(group.token()).isEqualTo(last));
    }

    @Test
    void tokensAndCommittedOffsetsSurviveAReopen() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("x"), keyless("y"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));

        StreamLog reopened = reopen(log);
        assertThat(reopened.lease(CLICKS.name(), "g", "w2", TTL, SERVER))
                .isEqualTo(new Leases.Held("w1", granted.expiresAtMicros()));
        assertThat(reopened.commit(CLICKS.name(), "g", granted.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));
        clock.advance(TTL.plusSeconds(1));
        Leases.Granted next = grant(reopened.lease(CLICKS.name(), "g", "w2", TTL, SERVER));
        assertThat(next.token().epoch()).isGreaterThan(granted.token().epoch());
        assertThat(next.committedOffset()).isEqualTo(2);
    }

    // ================================================================== ownership: keys, grants, secrets

    private static final Leases.Actor ALICE = new Leases.Actor("key_alice", false);
    private static final Leases.Actor BOB = new Leases.Actor("key_bob", false);
    private static final Leases.Actor ADMIN = new Leases.Actor("key_admin", true);

    @Test
    void aGroupBelongsToTheKeyThatMadeItAndAnyOtherKeyIsForbiddenWhateverItPresents() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, ALICE)).isEqualTo(new Leases.Committed(1));

        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, BOB)).as("the holder's owner string is no credential")
                .isEqualTo(new Leases.Forbidden());
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, BOB)).isEqualTo(new Leases.Forbidden());
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3, BOB)).as("nor is the token, for another key")
                .isEqualTo(new Leases.Forbidden());
        assertThat(log.release(CLICKS.name(), "g", granted.token(), BOB)).isEqualTo(new Leases.Forbidden());
        assertThat(log.groups(CLICKS.name())).singleElement().satisfies(group -> {
            assertThat(group.committedOffset()).isEqualTo(1);
            assertThat(group.holder()).isEqualTo("w1");
            assertThat(group.token()).isEqualTo(granted.token().epoch());
            assertThat(group.keys()).containsExactly("key_alice");
        });

        assertThat(log.lease(CLICKS.name(), "g", "ops", TTL, ADMIN)).as("an admin acts on any group, exclusively")
                .isEqualTo(new Leases.Held("w1", granted.expiresAtMicros()));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2, ADMIN)).isEqualTo(new Leases.Committed(2));
        assertThat(log.groups(CLICKS.name()).get(0).keys()).as("acting did not make it the admin's")
                .containsExactly("key_alice");

        StreamLog reopened = reopen(log);
        assertThat(reopened.commit(CLICKS.name(), "g", granted.token(), 3, BOB)).isEqualTo(new Leases.Forbidden());
        assertThat(reopened.commit(CLICKS.name(), "g", granted.token(), 3, ALICE))
                .as("owner and secret survive a reopen").isEqualTo(new Leases.Committed(3));
    }

    @Test
    void theHoldersOwnerStringFromAnotherKeyAllowedOnTheGroupIsHeldNeverTheToken() throws Exception {
        StreamLog log = open();
        Leases.Granted alices = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        log.grant(CLICKS.name(), "g", "key_bob");
        Leases.Held held = new Leases.Held("w1", alices.expiresAtMicros());
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, BOB)).as("a granted key").isEqualTo(held);
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, ADMIN)).as("an admin key").isEqualTo(held);
        clock.advance(Duration.ofSeconds(10));
        Leases.Granted renewed = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(renewed.token()).as("the holder's own key renews").isEqualTo(alices.token());

        StreamLog reopened = reopen(log);
        assertThat(reopened.lease(CLICKS.name(), "g", "w1", TTL, BOB)).as("the holder's key survives a reopen")
                .isEqualTo(new Leases.Held("w1", renewed.expiresAtMicros()));
        clock.advance(TTL.plusSeconds(1));
        Leases.Granted bobs = grant(reopened.lease(CLICKS.name(), "g", "w1", TTL, BOB));
        assertThat(bobs.token().epoch()).as("once expired, a new epoch").isGreaterThan(alices.token().epoch());
        assertThat(reopened.lease(CLICKS.name(), "g", "w1", TTL, ALICE))
                .isEqualTo(new Leases.Held("w1", bobs.expiresAtMicros()));
        assertThat(reopened.commit(CLICKS.name(), "g", alices.token(), 0, ALICE)).isInstanceOf(Leases.StaleToken.class);
        assertThat(grant(reopened.lease(CLICKS.name(), "g", "w1", TTL, BOB)).token()).isEqualTo(bobs.token());
    }

    @Test
    void aGrantAddsAKeyToAGroupAndMakesAGroupThatDoesNotExistYet() {
        StreamLog log = open();
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(log.grant(CLICKS.name(), "g", "key_bob").keys()).containsExactly("key_alice", "key_bob");
        assertThat(log.grant(CLICKS.name(), "g", "key_bob").keys()).as("granting again changes nothing")
                .containsExactly("key_alice", "key_bob");
        assertThat(log.lease(CLICKS.name(), "g", "w2", TTL, BOB))
                .isEqualTo(new Leases.Held("w1", granted.expiresAtMicros()));
        assertThat(log.release(CLICKS.name(), "g", granted.token(), ALICE)).isEqualTo(new Leases.Released());
        Leases.Granted bobs = grant(log.lease(CLICKS.name(), "g", "w2", TTL, BOB));
        assertThat(bobs.token().epoch()).isGreaterThan(granted.token().epoch());

        Leases.Group made = log.grant(CLICKS.name(), "reports", "key_bob");
        assertThat(made).isEqualTo(new Leases.Group(CLICKS.name(), "reports", 0, 0, null, null, 0, null,
                List.of("key_bob")));
        assertThat(log.lease(CLICKS.name(), "reports", "w1", TTL, ALICE)).isEqualTo(new Leases.Forbidden());
        assertThat(grant(log.lease(CLICKS.name(), "reports", "w2", TTL, BOB)).token().epoch()).isEqualTo(1);
    }

    @Test
    void aGroupNoKeyOwnsBelongsToTheFirstKeyThatLeasesItWithANewEpoch() {
        StreamLog log = open();
        Leases.Granted open = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.groups(CLICKS.name()).get(0).keys()).as("made without a key").isEmpty();
        Leases.Granted claimed = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(claimed.token().epoch()).as("the claim fences the lease granted without a key")
                .isGreaterThan(open.token().epoch());
        assertThat(log.commit(CLICKS.name(), "g", open.token(), 0, ALICE)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.groups(CLICKS.name()).get(0).keys()).containsExactly("key_alice");
        assertThat(log.lease(CLICKS.name(), "g", "w1", TTL, BOB)).isEqualTo(new Leases.Forbidden());
        assertThat(grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE)).token()).as("then renewals as before")
                .isEqualTo(claimed.token());
    }

    @Test
    void onlyTheWholeTokenCommitsAndEachLeaseHasItsOwnSecret() {
        StreamLog log = open();
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(first.token().secret()).hasSize(22).matches("[A-Za-z0-9_-]+");
        assertThat(Leases.Token.parse(first.token().toString())).contains(first.token());
        assertThat(log.commit(CLICKS.name(), "g", new Leases.Token(first.token().epoch(), "A".repeat(22)), 0, ALICE))
                .isInstanceOf(Leases.StaleToken.class);
        assertThat(log.commit(CLICKS.name(), "g", null, 0, ALICE)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.release(CLICKS.name(), "g", null, ALICE)).isInstanceOf(Leases.StaleToken.class);
        assertThat(log.release(CLICKS.name(), "g", first.token(), ALICE)).isEqualTo(new Leases.Released());
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w1", TTL, ALICE));
        assertThat(second.token().secret()).isNotEqualTo(first.token().secret());
        for (String notAToken : List.of("1", "1.", "0." + "A".repeat(22), "1." + "A".repeat(21), "x.y",
                "1." + "A".repeat(22) + "=", "-1." + "A".repeat(22))) {
            assertThat(Leases.Token.parse(notAToken)).as(notAToken).isEmpty();
        }
    }

    // ================================================================== commits and every refusal

    @Test
    void theHolderCommitsForwardAndMayRepeatItsCommittedOffset() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER)).isEqualTo(new Leases.Committed(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3, SERVER)).isEqualTo(new Leases.Committed(3));
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(3);
        assertThat(log.release(CLICKS.name(), "g", granted.token(), SERVER)).isInstanceOf(Leases.Released.class);
        assertThat(grant(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER)).committedOffset()).isEqualTo(3);
    }

    @Test
    void aCommitWithAStaleTokenIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        log.release(CLICKS.name(), "g", first.token(), SERVER);
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1, SERVER))
                .isEqualTo(new Leases.StaleToken(second.token().epoch()));
        assertThat(log.commit(CLICKS.name(), "g", new Leases.Token(second.token().epoch() + 1, second.token().secret()), 1, SERVER))
                .isEqualTo(new Leases.StaleToken(second.token().epoch()));
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitForAGroupNobodyEverLeasedIsRefusedAsStale() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"));
        assertThat(log.commit(CLICKS.name(), "nobody", new Leases.Token(1, "AAAAAAAAAAAAAAAAAAAAAA"), 1, SERVER))
                .isInstanceOf(Leases.StaleToken.class);
        assertThat(log.groups(CLICKS.name())).extracting(Leases.Group::committedOffset).allMatch(offset -> offset == 0);
    }

    @Test
    void aCommitAfterTheLeaseExpiredIsRefusedEvenIfNobodyTookOver() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        clock.advance(TTL.plusMillis(1));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER))
                .isEqualTo(new Leases.LeaseExpired(granted.expiresAtMicros()));
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitAfterReleaseIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"));
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.release(CLICKS.name(), "g", granted.token(), SERVER)).isInstanceOf(Leases.Released.class);
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER))
                .isInstanceOfAny(Leases.LeaseExpired.class, Leases.StaleToken.class);
        assertThat(committedOffset(log, CLICKS, "g")).isZero();
    }

    @Test
    void aCommitThatMovesBackwardsIsRefused() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        log.commit(CLICKS.name(), "g", first.token(), 2, SERVER);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1, SERVER)).isEqualTo(new Leases.OffsetRegressed(2));
        // Also for the next holder: the committed offset belongs to the group, not to the lease.
        log.release(CLICKS.name(), "g", first.token(), SERVER);
        Leases.Granted second = grant(log.lease(CLICKS.name(), "g", "w2", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "g", second.token(), 0, SERVER)).isEqualTo(new Leases.OffsetRegressed(2));
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(2);
    }

    @Test
    void aCommitPastTheHeadIsRefused() throws Exception {
        StreamLog log = open();
        Leases.Granted granted = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 1, SERVER)).isEqualTo(new Leases.BeyondHead(0));
        append(log, CLICKS, keyless("a"), keyless("b"));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3, SERVER)).isEqualTo(new Leases.BeyondHead(2));
        // Quarantined entries do not move the head a group commits against.
        append(log, CLICKS, quarantined("bad"));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 3, SERVER)).isEqualTo(new Leases.BeyondHead(2));
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));
        // The head, not the earliest stored offset, is the bound: trimming does not refuse a commit.
        log.trim(CLICKS.name(), 2);
        assertThat(log.commit(CLICKS.name(), "g", granted.token(), 2, SERVER)).isEqualTo(new Leases.Committed(2));
    }

    @Test
    void aRefusedCommitChangesNothing() throws Exception {
        StreamLog log = open();
        append(log, CLICKS, keyless("a"), keyless("b"), keyless("c"));
        Leases.Granted first = grant(log.lease(CLICKS.name(), "g", "w1", TTL, SERVER));
        log.commit(CLICKS.name(), "g", first.token(), 2, SERVER);
        Leases.Group before = log.groups(CLICKS.name()).get(0);

        assertThat(log.commit(CLICKS.name(), "g", new Leases.Token(first.token().epoch() + 7, first.token().secret()), 3, SERVER))
                .isInstanceOf(Leases.StaleToken.class);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 1, SERVER)).isInstanceOf(Leases.OffsetRegressed.class);
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 4, SERVER)).isInstanceOf(Leases.BeyondHead.class);
        assertThat(log.groups(CLICKS.name())).containsExactly(before);

        clock.advance(TTL.plusSeconds(1));
        assertThat(log.commit(CLICKS.name(), "g", first.token(), 3, SERVER)).isInstanceOf(Leases.LeaseExpired.class);
        assertThat(committedOffset(log, CLICKS, "g")).isEqualTo(2);
    }

    @Test
    void simultaneousLeaseRequestsGrantExactlyOne() throws Exception {
        StreamLog log = open();
        int threads = 8;
        int rounds = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < rounds; round++) {
                String group = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Leases.LeaseResult>> answers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String owner = "w" + t;
                    answers.add(pool.submit(() -> {
                        start.await();
                        return log.lease(CLICKS.name(), group, owner, TTL, SERVER);
                    }));
                }
                List<Leases.Granted> granted = new ArrayList<>();
                List<Leases.Held> held = new ArrayList<>();
                for (Future<Leases.LeaseResult> answer : answers) {
                    Leases.LeaseResult result = answer.get(OPERATION_SECONDS, TimeUnit.SECONDS);
                    if (result instanceof Leases.Granted g) {
                        granted.add(g);
                    } else {
                        held.add((Leases.Held) result);
                    }
                }
                assertThat(granted).as("grants in round %d", round).hasSize(1);
                Leases.Group state = log.groups(CLICKS.name()).stream()
                        .filter(candidate -> candidate.group().equals(group)).findFirst().orElseThrow();
                assertThat(state.token()).isEqualTo(granted.get(0).token().epoch());
                assertThat(held).hasSize(threads - 1)
                        .allSatisfy(h -> assertThat(h)
                                .isEqualTo(new Leases.Held(state.holder(), state.expiresAtMicros())));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void competingLeasersHoldTheLeaseOneAtATimeWithIncreasingTokensAndFencedCommits() throws Exception {
        StreamLog log = open();
        int threads = 8;
        int takeoversWanted = 100;
        int commitsPerHolder = 3;
        List<AppendRequest.Entry> entries = new ArrayList<>();
        for (int i = 0; i < takeoversWanted * commitsPerHolder + 50; i++) {
            entries.add(keyless("e" + i));
        }
        append(log, request(CLICKS, entries.toArray(AppendRequest.Entry[]::new)));

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger takeovers = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicLong lastCommitted = new AtomicLong();
        Set<String> holders = ConcurrentHashMap.newKeySet();
        Violations violations = new Violations();
        ConcurrentLinkedQueue<long[]> commits = new ConcurrentLinkedQueue<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "w" + t;
                workers.add(pool.submit(() -> {
                    start.await();
                    while (takeovers.get() < takeoversWanted && System.nanoTime() < deadline) {
                        Leases.LeaseResult result = log.lease(CLICKS.name(), "g", owner, TTL, SERVER);
                        if (result instanceof Leases.Held held) {
                            if (held.holder().equals(owner)) {
                                violations.add(owner + " was told it is held by itself");
                            }
                            Pause.millis(1); // a competitor's back-off before it asks again
                            continue;
                        }
                        Leases.Granted granted = (Leases.Granted) result;
                        // ---- critical section: only the holder is here, and only the holder moves the clock.
                        if (inside.incrementAndGet() != 1) {
                            violations.add("two holders at once, " + owner + " with token " + granted.token());
                        }
                        takeovers.incrementAndGet();
                        holders.add(owner);
                        long previousToken = lastToken.getAndSet(granted.token().epoch());
                        if (granted.token().epoch() <= previousToken) {
                            violations.add("token " + granted.token() + " after " + previousToken);
                        }
                        if (granted.committedOffset() != lastCommitted.get()) {
                            violations.add("granted with committed offset " + granted.committedOffset()
                                    + " but " + lastCommitted.get() + " was committed");
                        }
                        long next = granted.committedOffset();
                        for (int c = 0; c < commitsPerHolder; c++) {
                            next++;
                            Leases.CommitResult commit = log.commit(CLICKS.name(), "g", granted.token(), next, SERVER);
                            if (commit instanceof Leases.Committed) {
                                commits.add(new long[] {granted.token().epoch(), next});
                                lastCommitted.set(next);
                            } else {
                                violations.add("the holder's commit was refused: " + commit);
                            }
                            if (c == 0) {
                                Leases.LeaseResult renewed = log.lease(CLICKS.name(), "g", owner, TTL, SERVER);
                                if (!(renewed instanceof Leases.Granted g) || !g.token().equals(granted.token())) {
                                    violations.add("renewal answered " + renewed + " to token " + granted.token());
                                }
                            }
                        }
                        boolean abandon = ThreadLocalRandom.current().nextBoolean();
                        inside.decrementAndGet();
                        // ---- leaving: by expiry (a crashed consumer) or by release. Nobody else can be granted
                        // before the clock moves past the expiry or the release lands.
                        if (abandon) {
                            clock.advance(TTL.multipliedBy(2));
                        } else if (!(log.release(CLICKS.name(), "g", granted.token(), SERVER) instanceof Leases.Released)) {
                            violations.add("the holder could not release token " + granted.token());
                        }
                        // A zombie: the old holder commits again with its token; it must be fenced off.
                        Leases.CommitResult zombie = log.commit(CLICKS.name(), "g", granted.token(), next + 1, SERVER);
                        if (zombie instanceof Leases.Committed) {
                            commits.add(new long[] {granted.token().epoch(), next + 1});
                            violations.add("a zombie commit with token " + granted.token() + " succeeded");
                        }
                        Pause.millis(ThreadLocalRandom.current().nextInt(2)); // the workers' pace
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(OPERATION_SECONDS, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(violations.all()).isEmpty();
        assertThat(takeovers.get()).isGreaterThanOrEqualTo(10);
        assertThat(holders).hasSizeGreaterThan(1);
        // In commit order (the committed offset only moves forward) tokens never go back.
        List<long[]> ordered = new ArrayList<>(commits);
        ordered.sort((a, b) -> Long.compare(a[1], b[1]));
        for (int i = 1; i < ordered.size(); i++) {
            assertThat(ordered.get(i)[1]).as("offsets committed twice").isGreaterThan(ordered.get(i - 1)[1]);
            assertThat(ordered.get(i)[0]).as("token order at offset %d", ordered.get(i)[1])
                    .isGreaterThanOrEqualTo(ordered.get(i - 1)[0]);
        }
        Leases.Group group = log.groups(CLICKS.name()).get(0);
        assertThat(group.committedOffset()).isEqualTo(lastCommitted.get())
                .isEqualTo(ordered.get(ordered.size() - 1)[1]);
        assertThat(group.token()).isEqualTo(lastToken.get());
    }
}
