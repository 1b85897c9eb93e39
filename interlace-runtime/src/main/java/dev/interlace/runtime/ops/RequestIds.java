package dev.interlace.runtime.ops;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Request ids: a client's {@code X-Request-Id} when it is acceptable, otherwise a minted one. Minted ids are 26
 * characters of Crockford base32, time-ordered (48 bits of milliseconds, 80 random bits), so they sort by arrival.
 * They name requests and protect nothing (a minted id is told to its client, and the runtime's own are listed by
 * its routes), so the random bits come from {@link ThreadLocalRandom}, read without a lock or a system call; they
 * are not unpredictable.
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
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong() >>> 24; // 40 bits each
        long low = random.nextLong() >>> 24;
        char[] id = new char[26];
        for (int i = 9; i >= 0; i--) {
            id[i] = ALPHABET[(int) (millis & 31)];
            millis >>>= 5;
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
