package dev.interlace.runtime.auth;

import dev.interlace.runtime.ops.DaemonThreads;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The API keys of a data directory, in {@code <data-dir>/keys.json}: the store {@code interlace keys} manages and the
 * {@link ApiKeys} view a server authenticates with.
 *
 * <p>The file holds each key's public id, name, scopes, quota, times and the SHA-256 of its secret — never the secret,
 * which {@link #create} returns once. A secret is 32 random bytes, so a fast hash is enough (there is nothing to
 * brute-force); presented secrets are compared by hash in constant time. The file is mode 0600 where the file system
 * has POSIX permissions.
 *
 * <p>Several processes share the file (the CLI creating a key while the server records last uses): every change is a
 * read-modify-write under an exclusive lock on {@code keys.json.lock}, written to a temporary file and renamed over
 * the old one, so a reader never sees half a file and needs no lock. A daemon thread re-reads the file every 250 ms,
 * so a key created or revoked while the server runs works or stops within a second. A file that cannot be parsed is
 * an error, never "no keys": that would open a loopback server.
 */
public final class KeyFile implements ApiKeys, AutoCloseable {

    /** The file's name in the data directory. */
    public static final String FILE_NAME = "keys.json";
    /** The prefix of every secret, so a leaked one is recognisable (e.g. by secret scanners). */
    public static final String SECRET_PREFIX = "ilk_";

    static final long WATCH_INTERVAL_MILLIS = 250;
    /** A key's last use is recorded at most this often. */
    static final long LAST_USED_GRANULARITY_MICROS = TimeUnit.MINUTES.toMicros(1);

    private static final Logger LOG = Logger.getLogger(KeyFile.class.getName());
    private static final int SECRET_BYTES = 32;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    /**
     * File locks belong to the whole JVM (a second lock on the same file from this process throws), so instances in
     * one process also take a lock per file.
     */
    private static final Map<Path, ReentrantLock> IN_PROCESS_LOCKS = new ConcurrentHashMap<>();

    /**
     * A key just created, with its secret: show the secret once, then forget it.
     *
     * @param key the key as listed
     * @param secret {@code ilk_...}, the only copy there will ever be
     */
    public record CreatedKey(ApiKey key, String secret) {
        @Override
        public String toString() {
            return "CreatedKey[key=" + key + ", secret=(hidden)]";
        }
    }

    /**
     * A key as {@code interlace keys list} shows it, live or revoked.
     *
     * @param revokedAtMicros when it was revoked, epoch microseconds; 0 while live
     */
    public record ListedKey(ApiKey key, long revokedAtMicros) {
        public boolean revoked() {
            return revokedAtMicros != 0;
        }
    }

    /**
     * The outcome of {@link #revoke}.
     *
     * @param key the key revoked
     * @param noLiveKeyLeft whether it was the last live key: a loopback server is now open without keys
     */
    public record RevokedKey(ApiKey key, boolean noLiveKeyLeft) {}

    /** The keys as last read, and the bytes they were read from (to notice a change). */
    private record Snapshot(byte[] content, List<StoredKey> keys) {}

    /** A change made under the lock; may add, replace or remove keys in the list it is given. */
    @FunctionalInterface
    private interface Change<T> {
        T apply(List<StoredKey> keys);
    }

    private final Path file;
    private final Path lockFile;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    /** Last uses recorded in memory, by key id: the newest this process knows. */
    private final Map<String, Long> lastUses = new ConcurrentHashMap<>();
    /** Last uses not yet written to the file, by key id. */
    private final Map<String, Long> unwrittenLastUses = new ConcurrentHashMap<>();
    private final Thread watcher;
    private volatile Snapshot snapshot;
    private volatile boolean closed;
    private volatile String lastReloadProblem;

    private KeyFile(Path file, Clock clock, Snapshot snapshot) {
        this.file = file;
        this.lockFile = file.resolveSibling(FILE_NAME + ".lock");
        this.clock = clock;
        this.snapshot = snapshot;
        this.watcher = DaemonThreads.thread(this::watch, "interlace-key-file-watcher");
    }

    /** Where the key file of {@code dataDirectory} is. */
    public static Path file(Path dataDirectory) {
        return dataDirectory.resolve(FILE_NAME);
    }

    /**
     * Reads the keys of {@code dataDirectory} (none when it has no key file yet) and starts watching the file.
     *
     * @throws KeyFileException naming the file when it cannot be read or is not a key file
     */
    public static KeyFile open(Path dataDirectory) {
        return open(dataDirectory, Clock.systemUTC());
    }

    static KeyFile open(Path dataDirectory, Clock clock) {
        Path file = file(dataDirectory);
        byte[] content = read(file);
        KeyFile keys = new KeyFile(file, clock, new Snapshot(content, KeyFileFormat.parse(file, content)));
        keys.watcher.start();
        return keys;
    }

    /** The path of the key file. */
    public Path path() {
        return file;
    }

    @Override
    public boolean isEmpty() {
        // Asked on every request (is the server open?): a plain loop, no stream pipeline built each time.
        for (StoredKey key : snapshot.keys()) {
            if (key.live()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Optional<ApiKey> live(String id) {
        for (StoredKey key : snapshot.keys()) {
            if (key.live() && key.id().equals(id)) {
                return Optional.of(key.apiKey(Math.max(key.lastUsedAtMicros(), lastUses.getOrDefault(id, 0L))));
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<ApiKey> authenticate(String secret) {
        if (secret == null) {
            return Optional.empty();
        }
        byte[] presented = sha256(secret);
        StoredKey match = null;
        for (StoredKey key : snapshot.keys()) {
            // Every hash is compared, in constant time, so the time taken says nothing about which bytes matched.
            boolean equal = key.hashMatches(presented);
            if (equal && key.live()) {
                match = key;
            }
        }
        if (match == null) {
            return Optional.empty();
        }
        long now = nowMicros();
        long known = Math.max(match.lastUsedAtMicros(), lastUses.getOrDefault(match.id(), 0L));
        if (now - known >= LAST_USED_GRANULARITY_MICROS) {
            lastUses.put(match.id(), now);
            unwrittenLastUses.put(match.id(), now);
            known = now;
        }
        return Optional.of(match.apiKey(known));
    }

    /**
     * Creates a key and its secret, with no quota in bytes.
     *
     * @param quotaEventsPerSecond its publish quota in events per second, 0 for none
     * @throws IllegalArgumentException for a name that is not valid ({@link #checkName}), no scopes or a negative quota
     * @throws IllegalStateException when a live key already has the name
     */
    public CreatedKey create(String name, List<Scope> scopes, double quotaEventsPerSecond) {
        return create(name, scopes, quotaEventsPerSecond, 0);
    }

    /**
     * Creates a key and its secret.
     *
     * @param quotaEventsPerSecond its publish quota in events per second, 0 for none
     * @param quotaBytesPerSecond its publish quota in bytes of request body per second, 0 for none
     * @throws IllegalArgumentException for a name that is not valid ({@link #checkName}), no scopes or a negative quota
     * @throws IllegalStateException when a live key already has the name
     */
    public CreatedKey create(String name, List<Scope> scopes, double quotaEventsPerSecond, long quotaBytesPerSecond) {
        checkName(name);
        if (scopes.isEmpty()) {
            throw new IllegalArgumentException("a key needs at least one scope");
        }
        if (!(quotaEventsPerSecond >= 0) || Double.isInfinite(quotaEventsPerSecond)) {
            throw new IllegalArgumentException("the quota is events per second, 0 or more (0 for none), not "
                    + quotaEventsPerSecond);
        }
        if (quotaBytesPerSecond < 0) {
            throw new IllegalArgumentException("the byte quota is bytes per second, 0 or more (0 for none), not "
                    + quotaBytesPerSecond);
        }
        byte[] secretBytes = new byte[SECRET_BYTES];
        random.nextBytes(secretBytes);
        String secret = SECRET_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secretBytes);
        byte[] hash = sha256(secret);
        long now = nowMicros();
        return change(keys -> {
            if (keys.stream().anyMatch(key -> key.live() && key.name().equals(name))) {
                throw new IllegalStateException("a key named \"" + name + "\" exists; revoke it first or choose"
                        + " another name");
            }
            String id;
            do {
                byte[] idBytes = new byte[4];
                random.nextBytes(idBytes);
                id = "key_" + HexFormat.of().formatHex(idBytes);
            } while (idTaken(keys, id));
            StoredKey key = new StoredKey(id, name, List.copyOf(scopes), hash, now, 0, quotaEventsPerSecond,
                    quotaBytesPerSecond, 0);
            keys.add(key);
            return new CreatedKey(key.apiKey(0), secret);
        });
    }

    /** Every key, live and revoked, oldest first, as last read (the file is re-read every 250 ms). */
    public List<StoredKey> stored() {
        return snapshot.keys();
    }

    /**
     * Takes in copies of keys kept elsewhere (by the other nodes of a cluster): a key the file does not have is
     * added; a copy of one it has brings its later last use and its revocation ({@link StoredKey#mergedWith}), so a
     * key revoked anywhere is revoked here too. A different key with the id of one in the file is left out (the
     * file's own stays as it is) and its id returned. Writes the file only when something changed.
     *
     * @return the ids of the keys left out because another key in the file has the id
     */
    public List<String> merge(Collection<StoredKey> copies) {
        return change(keys -> {
            List<String> conflicts = new ArrayList<>();
            for (StoredKey copy : copies) {
                int index = indexOf(keys, copy.id());
                if (index < 0) {
                    keys.add(copy);
                } else if (keys.get(index).sameDefinition(copy)) {
                    keys.set(index, keys.get(index).mergedWith(copy));
                } else {
                    conflicts.add(copy.id());
                }
            }
            keys.sort(Comparator.comparingLong(StoredKey::createdAtMicros));
            return conflicts;
        });
    }

    /** Every key in the file, live and revoked, oldest first, as the file says now. */
    public List<ListedKey> list() {
        byte[] content = read(file);
        List<StoredKey> keys = KeyFileFormat.parse(file, content);
        return keys.stream()
                .map(key -> new ListedKey(key.apiKey(lastUses.getOrDefault(key.id(), 0L)), key.revokedAtMicros()))
                .toList();
    }

    /**
     * Revokes the live key with this id or name: the server refuses it within a second.
     *
     * @throws NoSuchElementException when no key has this id or name
     * @throws IllegalStateException when the key is already revoked
     */
    public RevokedKey revoke(String nameOrId) {
        long now = nowMicros();
        return change(keys -> {
            for (int i = 0; i < keys.size(); i++) {
                StoredKey key = keys.get(i);
                if (key.live() && (key.id().equals(nameOrId) || key.name().equals(nameOrId))) {
                    StoredKey revoked = key.revokedAt(now);
                    keys.set(i, revoked);
                    return new RevokedKey(revoked.apiKey(0), keys.stream().noneMatch(StoredKey::live));
                }
            }
            for (StoredKey key : keys) {
                if (key.id().equals(nameOrId) || key.name().equals(nameOrId)) {
                    throw new IllegalStateException("the key " + key.id() + " (" + key.name() + ") was already"
                            + " revoked at " + KeyFileFormat.instant(key.revokedAtMicros()));
                }
            }
            throw new NoSuchElementException("no key named or with id \"" + nameOrId + "\" in " + file);
        });
    }

    /**
     * Checks a key name: a letter or digit, then letters, digits, {@code .}, {@code _} or {@code -}, at most 64 in
     * all, and not shaped like a key id (so {@code revoke NAME|ID} is never ambiguous).
     *
     * @throws IllegalArgumentException saying what a name may be
     */
    public static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a key name is 1 to 64 letters, digits, '.', '_' or '-', starting with"
                    + " a letter or digit; got \"" + name + "\"");
        }
        if (KeyFileFormat.ID.matcher(name).matches()) {
            throw new IllegalArgumentException("\"" + name + "\" looks like a key id; choose another name");
        }
    }

    /** Stops watching the file and writes the last uses not yet written. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watcher.interrupt();
        DaemonThreads.join(watcher, Duration.ofSeconds(5));
        try {
            writeLastUses();
        } catch (KeyFileException e) {
            LOG.log(Level.WARNING, "could not record the keys' last uses in " + file + ": " + e.getMessage());
        }
    }

    private void watch() {
        while (!closed) {
            try {
                Thread.sleep(WATCH_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            try {
                reloadIfChanged();
                writeLastUses();
                lastReloadProblem = null;
            } catch (KeyFileException e) {
                // Keep the keys last read: a file being repaired by hand must not turn keys off (or on).
                if (!e.getMessage().equals(lastReloadProblem)) {
                    LOG.log(Level.SEVERE, e.getMessage() + "; still using the keys read before");
                    lastReloadProblem = e.getMessage();
                }
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "watching " + file + " failed", e);
            }
        }
    }

    /** Re-reads the file if its bytes changed; visible for tests. */
    void reloadIfChanged() {
        byte[] content = read(file);
        if (!Arrays.equals(content, snapshot.content())) {
            snapshot = new Snapshot(content, KeyFileFormat.parse(file, content));
        }
    }

    /** Writes the last uses recorded since the previous write, in one change of the file. */
    void writeLastUses() {
        if (unwrittenLastUses.isEmpty()) {
            return;
        }
        Map<String, Long> batch = Map.copyOf(unwrittenLastUses);
        batch.forEach(unwrittenLastUses::remove);
        try {
            change(keys -> {
                keys.replaceAll(key -> batch.containsKey(key.id()) ? key.usedAt(batch.get(key.id())) : key);
                return null;
            });
        } catch (KeyFileException e) {
            batch.forEach(unwrittenLastUses::putIfAbsent);
            throw e;
        }
    }

    /** Applies a change to the keys as the file has them now, under the lock, and writes the result. */
    private <T> T change(Change<T> change) {
        ReentrantLock inProcess = IN_PROCESS_LOCKS.computeIfAbsent(lockFile.toAbsolutePath().normalize(),
                path -> new ReentrantLock());
        inProcess.lock();
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (FileChannel channel = OwnerOnlyFiles.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = channel.lock()) {
                byte[] content = read(file);
                List<StoredKey> keys = new ArrayList<>(KeyFileFormat.parse(file, content));
                T result = change.apply(keys);
                byte[] updated = KeyFileFormat.serialize(keys);
                if (!Arrays.equals(updated, content)) {
                    OwnerOnlyFiles.replace(file, updated);
                }
                snapshot = new Snapshot(updated, List.copyOf(keys));
                return result;
            }
        } catch (IOException e) {
            throw new KeyFileException("cannot update the key file " + file + ": " + e, e);
        } finally {
            inProcess.unlock();
        }
    }

    private static int indexOf(List<StoredKey> keys, String id) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).id().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean idTaken(List<StoredKey> keys, String id) {
        return keys.stream().anyMatch(key -> key.id().equals(id));
    }

    /** The key file's bytes, or null when there is none yet. */
    private static byte[] read(Path file) {
        try {
            return OwnerOnlyFiles.readIfExists(file);
        } catch (IOException e) {
            throw new KeyFileException("cannot read the key file " + file + ": " + e, e);
        }
    }

    private long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, clock.instant());
    }

    /** The SHA-256 of a secret: what is stored of it, and what a presented secret is compared by. */
    public static byte[] sha256(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
