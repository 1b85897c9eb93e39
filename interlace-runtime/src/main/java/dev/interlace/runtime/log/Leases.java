package dev.interlace.runtime.log;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** Outcomes of the consumer-group operations of {@link ConsumerGroups} (leases with fencing tokens, commits). */
public final class Leases {

    private Leases() {}

    /**
     * A lease's fencing token: the epoch, which orders the leases of a group (higher than any earlier holder's), and a
     * random secret, which makes it a credential. Its text form, {@code <epoch>.<secret>}, is what a client holds.
     *
     * @param epoch the fencing order, 1 for a group's first lease
     * @param secret 128 random bits in base64url, never shown to anyone but the holder
     */
    public record Token(long epoch, String secret) {

        private static final Pattern TEXT = Pattern.compile("([1-9][0-9]{0,18})\\.([A-Za-z0-9_-]{22})");
        private static final SecureRandom RANDOM = new SecureRandom();

        /** A token of {@code epoch} with a new secret. */
        public static Token mint(long epoch) {
            byte[] bits = new byte[16];
            RANDOM.nextBytes(bits);
            return new Token(epoch, Base64.getUrlEncoder().withoutPadding().encodeToString(bits));
        }

        /** The token a client sent, or empty when the text is not one (an old integer token, say). */
        public static Optional<Token> parse(String text) {
            java.util.regex.Matcher matcher = text == null ? null : TEXT.matcher(text);
            if (matcher == null || !matcher.matches()) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Token(Long.parseLong(matcher.group(1)), matcher.group(2)));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        /**
         * Whether this is the current token of {@code group}: same epoch and same secret, the secret compared in
         * constant time so that the time taken says nothing about how much of it matched. A group leased before
         * tokens had secrets matches no token.
         */
        public boolean isCurrentOf(Group group) {
            return group != null && group.secret() != null && group.token() == epoch
                    && MessageDigest.isEqual(secret.getBytes(StandardCharsets.US_ASCII),
                            group.secret().getBytes(StandardCharsets.US_ASCII));
        }

        /** {@code <epoch>.<secret>}. */
        @Override
        public String toString() {
            return epoch + "." + secret;
        }
    }

    /**
     * Who acts on a group, as far as groups care: the key's id, and whether it may act on every group (an admin key,
     * a server in open mode, the flusher).
     *
     * @param keyId the key's id, or null without a key (open mode, the flusher)
     * @param everyGroup whether group ownership does not apply to it
     */
    public record Actor(String keyId, boolean everyGroup) {

        /** Open mode and the server's own consumers: no key, every group. */
        public static final Actor SERVER = new Actor(null, true);

        /** Whether it may act on {@code group}: its own, one granted to it, one nobody owns yet, or any when admin. */
        public boolean mayActOn(Group group) {
            return everyGroup || group == null || group.keys().isEmpty() || group.keys().contains(keyId);
        }

        /** Whether the lease of {@code group} was granted to this key (or, both without a key, to the server). */
        boolean holds(Group group) {
            return java.util.Objects.equals(keyId, group.holderKey());
        }

        /** Whether leasing {@code group} makes it this key's: a group no key owns, leased by a consume key. */
        boolean claims(Group group) {
            return !everyGroup && keyId != null && group.keys().isEmpty();
        }
    }

    /** What {@link ConsumerGroups#lease} answered. */
    public sealed interface LeaseResult {}

    /**
     * The lease is yours until {@code expiresAtMicros}; present {@code token} with every commit.
     *
     * @param token the fencing token: its epoch higher than any earlier holder's
     * @param committedOffset the group's committed offset; read after it
     */
    public record Granted(Token token, long committedOffset, long expiresAtMicros) implements LeaseResult {}

    /** Someone else holds an unexpired lease. */
    public record Held(String holder, long expiresAtMicros) implements LeaseResult {}

    /** The group belongs to other keys: nothing was done, and nothing about the group is told. */
    public record Forbidden() implements LeaseResult, CommitResult, ReleaseResult {}

    /** What {@link ConsumerGroups#commit} answered. */
    public sealed interface CommitResult {}

    /** The offset is committed. */
    public record Committed(long committedOffset) implements CommitResult {}

    /** The token is not the group's current one: another consumer took over. */
    public record StaleToken(long currentEpoch) implements CommitResult, ReleaseResult {}

    /** The lease expired; lease again (a new token) before committing. */
    public record LeaseExpired(long expiredAtMicros) implements CommitResult {}

    /** The offset is below the committed one. */
    public record OffsetRegressed(long committedOffset) implements CommitResult {}

    /** The offset is past the stream's head. */
    public record BeyondHead(long head) implements CommitResult {}

    /** What {@link ConsumerGroups#release} answered. */
    public sealed interface ReleaseResult {}

    /** The lease is given up: anyone allowed may lease the group at once. */
    public record Released() implements ReleaseResult {}

    /**
     * A consumer group's state.
     *
     * @param token the current lease's epoch (0 when never leased)
     * @param holder the lease holder, or null when nobody holds it
     * @param holderKey the id of the key the lease was granted to, or null when granted without a key (open mode,
     *     the server's own consumers, or before leases remembered their key): only that key renews the lease
     * @param expiresAtMicros when the lease expires (0 when never leased)
     * @param secret the secret of the current lease's token, or null for a group leased before tokens had one
     * @param keys the ids of the keys the group belongs to (its creator's and those an admin granted), in the order
     *     they were given; empty for a group no key owns yet (made in open mode, or before groups had owners)
     */
    public record Group(String stream, String group, long committedOffset, long token, String holder,
            String holderKey, long expiresAtMicros, String secret, List<String> keys) {

        public Group {
            keys = keys == null ? List.of() : List.copyOf(keys);
        }

        /** The group with {@code keyId} among its keys (unchanged when it already is). */
        public Group grantedTo(String keyId) {
            if (keys.contains(keyId)) {
                return this;
            }
            List<String> more = new java.util.ArrayList<>(keys);
            more.add(keyId);
            return new Group(stream, group, committedOffset, token, holder, holderKey, expiresAtMicros, secret, more);
        }
    }
}
