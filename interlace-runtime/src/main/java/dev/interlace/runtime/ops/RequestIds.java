package dev.interlace.runtime.ops;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Request ids: a client's {@code X-Request-Id} when it is acceptable, otherwise a minted one. Minted ids are 26
 * characters of Crockford base32, time-ordered (48 bits of milliseconds, 80 random bits), so they sort by arrival.
 */
public final class RequestIds {

    /**
     * Prefixes reserved for the runtime's own work (start-up, flushes, model runs, scheduled jobs such as the
     * retention sweep); a client id may not start with them.
     */
    public static final List<String> SENTINEL_PREFIXES = List.of("boot-", "flush-", "run-", "sched-");

    private static final Pattern ACCEPTABLE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public RequestIds(Clock clock) {
        this.clock = clock;
    }

    /** The client's id if it is 1–128 of {@code [A-Za-z0-9._:-]} without a sentinel prefix, else a new one. */
    public String resolve(String clientId) {
        if (clientId != null && isAcceptable(clientId)) {
            return clientId;
        }
        return mint();
    }

    /** Whether a client may use {@code id}. */
    public static boolean isAcceptable(String id) {
        if (!ACCEPTABLE.matcher(id).matches()) {
            return false;
        }
        for (String prefix : SENTINEL_PREFIXES) {
            if (id.startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    /** A new time-ordered id for the runtime's own work, e.g. {@code run-01M8...}; the prefix is a sentinel. */
    public String mintWithPrefix(String sentinelPrefix) {
        if (!SENTINEL_PREFIXES.contains(sentinelPrefix)) {
            throw new IllegalArgumentException(sentinelPrefix + " is not one of " + SENTINEL_PREFIXES);
        }
        return sentinelPrefix + mint();
    }

    /** A new time-ordered id. */
    public String mint() {
        long millis = clock.millis();
        byte[] entropy = new byte[10];
        random.nextBytes(entropy);
        char[] id = new char[26];
        for (int i = 9; i >= 0; i--) {
            id[i] = ALPHABET[(int) (millis & 31)];
            millis >>>= 5;
        }
        long high = 0;
        for (int i = 0; i < 5; i++) {
            high = (high << 8) | (entropy[i] & 0xff);
        }
        long low = 0;
        for (int i = 5; i < 10; i++) {
            low = (low << 8) | (entropy[i] & 0xff);
        }
        for (int i = 17; i >= 10; i--) {
            id[i] = ALPHABET[(int) (high & 31)];
            high >>>= 5;
        }
        for (int i = 25; i >= 18; i--) {
            id[i] = ALPHABET[(int) (low & 31)];
            low >>>= 5;
        }
        return new String(id);
    }
}
