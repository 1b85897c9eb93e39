package dev.interlace.runtime.auth.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite (TCK) of {@link ApiKeys}: the keys a running server accepts.
 *
 * <p>It specifies that a data directory without keys is empty (open mode) and accepts no secret; that a key created
 * by the administration side (the {@code interlace keys} CLI, another process) is accepted by its exact secret, with
 * its id, name, scopes and quota, while the server runs and after a restart; that any other text is refused; that a
 * revoked key is refused while the others keep working, and revoking the last live key makes the keys empty again;
 * that the secret is nowhere at rest in the data directory (keys are stored as hashes); that a use is recorded as the
 * key's last use; and that lookups running while keys are created and revoked never refuse a live key nor accept a
 * wrong or revoked one.
 *
 * <p>A change made by the administration side must be seen by an open {@link ApiKeys} "within a second"; the suite
 * waits for it with a deadline of {@link #CHANGE_SEEN_WITHIN} (generous, so that a loaded machine does not fail it)
 * rather than asserting the second.
 *
 * <h2>Running it against an implementation</h2>
 *
 * <p>The suite ships in the runtime's test jar (see {@code StreamLogContract} for the dependency). An implementation
 * extends it and provides the server's view ({@link #openKeys}) and the administration side
 * ({@link #administration}), each on a data directory; {@code KeyFileApiKeysContractTest} (same package) is the
 * reference. The suite closes every view it opened that is {@link AutoCloseable}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ApiKeysContract {

    /** How long the suite waits for an open view to see a change made by the administration side. */
    protected static final Duration CHANGE_SEEN_WITHIN = Duration.ofSeconds(10);

    /** Opens the server's view of the keys of {@code dataDirectory}, as a starting server would. */
    protected abstract ApiKeys openKeys(Path dataDirectory);

    /** The administration side of {@code dataDirectory}: what {@code interlace keys} does, from another process. */
    protected abstract KeyAdministration administration(Path dataDirectory);

    /** Creating, listing and revoking keys; not part of {@link ApiKeys}, so each implementation adapts its own. */
    public interface KeyAdministration {

        /** Creates a live key; returns it (as listed) and its secret, shown this once. */
        CreatedKey create(String name, List<Scope> scopes, double quotaEventsPerSecond);

        /** Revokes the live key with this name or id. */
        void revoke(String nameOrId);

        /** Every key, live and revoked, oldest first. */
        List<ListedKey> list();

        /**
         * The administration of keys kept in a data directory's key file: a key file of its own for each change, as
         * the {@code interlace keys} command does from another process.
         */
        static KeyAdministration ofKeyFile(Path dataDirectory) {
            return new KeyAdministration() {
                @Override
                public CreatedKey create(String name, List<Scope> scopes, double quotaEventsPerSecond) {
                    try (KeyFile keys = KeyFile.open(dataDirectory)) {
                        KeyFile.CreatedKey created = keys.create(name, scopes, quotaEventsPerSecond);
                        return new CreatedKey(created.key(), created.secret());
                    }
                }

                @Override
                public void revoke(String nameOrId) {
                    try (KeyFile keys = KeyFile.open(dataDirectory)) {
                        keys.revoke(nameOrId);
                    }
                }

                @Override
                public List<ListedKey> list() {
                    try (KeyFile keys = KeyFile.open(dataDirectory)) {
                        return keys.list().stream().map(listed -> new ListedKey(listed.key(), listed.revoked()))
                                .toList();
                    }
                }
            };
        }
    }

    /** A key just created and its secret. */
    public record CreatedKey(ApiKey key, String secret) {}

    /** A key as listed, and whether it was revoked. */
    public record ListedKey(ApiKey key, boolean revoked) {}

    @TempDir
    protected Path dataDirectory;

    private final List<ApiKeys> opened = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEveryOpenedView() throws Exception {
        for (ApiKeys keys : opened) {
            if (keys instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
        opened.clear();
    }

    private ApiKeys open() {
        ApiKeys keys = openKeys(dataDirectory);
        opened.add(keys);
        return keys;
    }

    private KeyAdministration admin() {
        return administration(dataDirectory);
    }

    // ================================================================== tests

    @Test
    void aDataDirectoryWithoutKeysIsEmptyAndAcceptsNoSecret() {
        ApiKeys keys = open();
        assertThat(keys.isEmpty()).isTrue();
        assertThat(keys.authenticate("ilk_" + "A".repeat(43))).isEmpty();
        assertThat(keys.authenticate("")).isEmpty();
        assertThat(keys.authenticate(null)).isEmpty();
        assertThat(admin().list()).isEmpty();
    }

    @Test
    void aCreatedKeyIsAcceptedByItsSecretWithItsIdNameScopesAndQuota() {
        ApiKeys keys = open();
        CreatedKey created = admin().create("ingest", List.of(Scope.publish("orders"), Scope.of(Scope.Kind.READ)),
                250);
        waitUntil("the new key is accepted", () -> keys.authenticate(created.secret()).isPresent());
        assertThat(keys.isEmpty()).isFalse();

        ApiKey key = keys.authenticate(created.secret()).orElseThrow();
        assertThat(key.id()).isEqualTo(created.key().id());
        assertThat(key.name()).isEqualTo("ingest");
        assertThat(key.scopes()).containsExactly(Scope.publish("orders"), Scope.of(Scope.Kind.READ));
        assertThat(key.quotaEventsPerSecond()).isEqualTo(250);
        assertThat(key.createdAtMicros()).isEqualTo(created.key().createdAtMicros()).isPositive();
        assertThat(key.allows(Scope.publish("orders"))).isTrue();
        assertThat(key.allows(Scope.publish("clicks"))).isFalse();
        assertThat(key.allows(Scope.of(Scope.Kind.ADMIN))).isFalse();

        assertThat(admin().list()).extracting(listed -> listed.key().id(), ListedKey::revoked)
                .containsExactly(tuple(created.key().id(), false));
        assertThat(openKeys(dataDirectory)).as("a server started later").satisfies(later -> {
            opened.add(later);
            assertThat(later.authenticate(created.secret()).map(ApiKey::id)).contains(created.key().id());
        });
    }

    @Test
    void anyOtherTextIsRefused() {
        ApiKeys keys = open();
        TwoKeys both = ingestAndReaderAccepted(keys);
        String secret = both.ingest().secret();
        char last = secret.charAt(secret.length() - 1);
        for (String wrong : List.of(secret + "x", secret.substring(0, secret.length() - 1),
                secret.substring(0, secret.length() - 1) + (last == 'A' ? 'B' : 'A'), " " + secret, secret + " ",
                secret.toUpperCase(Locale.ROOT).equals(secret) ? secret.toLowerCase(Locale.ROOT)
                        : secret.toUpperCase(Locale.ROOT),
                both.ingest().key().id(), both.ingest().key().name(), "ilk_", "")) {
            assertThat(keys.authenticate(wrong)).as("\"%s\"", wrong).isEmpty();
        }
        assertThat(keys.authenticate(both.reader().secret()).map(ApiKey::name)).as("each secret is its own key's")
                .contains("reader");
    }

    @Test
    void aRevokedKeyIsRefusedAndTheOthersKeepWorking() {
        ApiKeys keys = open();
        TwoKeys both = ingestAndReaderAccepted(keys);
        CreatedKey ingest = both.ingest();
        CreatedKey reader = both.reader();

        admin().revoke("ingest");
        waitUntil("the revoked key is refused", () -> keys.authenticate(ingest.secret()).isEmpty());
        assertThat(keys.authenticate(reader.secret())).isPresent();
        assertThat(keys.live(ingest.key().id())).as("a revoked key is not live by its id").isEmpty();
        assertThat(keys.live(reader.key().id()).map(ApiKey::scopes)).contains(List.of(Scope.of(Scope.Kind.READ)));
        assertThat(keys.live("key_nope")).isEmpty();
        assertThat(keys.isEmpty()).isFalse();
        assertThat(admin().list()).extracting(listed -> listed.key().name(), ListedKey::revoked).containsExactly(
                tuple("ingest", true),
                tuple("reader", false));

        admin().revoke(reader.key().id());
        waitUntil("no live key is left", keys::isEmpty);
        assertThat(keys.authenticate(reader.secret())).isEmpty();

        ApiKeys restarted = open();
        assertThat(restarted.isEmpty()).as("revocations are durable").isTrue();
        assertThat(restarted.authenticate(ingest.secret())).isEmpty();

        CreatedKey again = admin().create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
        waitUntil("a new key of a revoked name is accepted", () -> keys.authenticate(again.secret()).isPresent());
        assertThat(keys.authenticate(ingest.secret())).as("the old secret stays refused").isEmpty();
    }

    @Test
    void theSecretIsNowhereAtRestInTheDataDirectory() throws Exception {
        ApiKeys keys = open();
        CreatedKey created = admin().create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
        waitUntil("the key is accepted", () -> keys.authenticate(created.secret()).isPresent());
        closeEveryOpenedView();
        String secret = created.secret();
        String random = secret.substring(secret.length() - 32);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dataDirectory)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            String content = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertThat(content).as(file.toString()).doesNotContain(random);
        }
    }

    @Test
    void aUseIsRecordedAsTheKeysLastUse() {
        ApiKeys keys = open();
        CreatedKey created = admin().create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
        assertThat(created.key().lastUsedAtMicros()).as("never used").isZero();
        waitUntil("the key is accepted", () -> keys.authenticate(created.secret()).isPresent());
        ApiKey used = keys.authenticate(created.secret()).orElseThrow();
        assertThat(used.lastUsedAtMicros()).isGreaterThanOrEqualTo(created.key().createdAtMicros());
        assertThat(keys.authenticate(created.secret()).orElseThrow().lastUsedAtMicros())
                .as("recorded at most once a minute").isEqualTo(used.lastUsedAtMicros());
    }

    @Test
    void lookupsDuringChangesNeverRefuseALiveKeyNorAcceptAWrongOne() throws Exception {
        ApiKeys keys = open();
        CreatedKey stable = admin().create("stable", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
        waitUntil("the stable key is accepted", () -> keys.authenticate(stable.secret()).isPresent());

        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        List<String> revokedSecrets = new CopyOnWriteArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong lookups = new AtomicLong();
        CountDownLatch started = new CountDownLatch(4);
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread reader = new Thread(() -> {
                started.countDown();
                while (!done.get()) {
                    Optional<ApiKey> found = keys.authenticate(stable.secret());
                    if (found.isEmpty() || !found.get().id().equals(stable.key().id())) {
                        violations.add("the stable key was not accepted: " + found);
                    }
                    if (keys.authenticate(stable.secret() + "x").isPresent()) {
                        violations.add("a wrong secret was accepted");
                    }
                    for (String revoked : revokedSecrets) {
                        if (keys.authenticate(revoked).isPresent()) {
                            violations.add("a key revoked before the lookup began was accepted");
                        }
                    }
                    if (keys.isEmpty()) {
                        violations.add("isEmpty while the stable key is live");
                    }
                    lookups.incrementAndGet();
                }
            }, "contract-key-lookup-" + i);
            reader.setDaemon(true);
            readers.add(reader);
            reader.start();
        }
        started.await();
        for (int round = 0; round < 10; round++) {
            CreatedKey temporary = admin().create("temporary-" + round, List.of(Scope.of(Scope.Kind.READ)), 0);
            waitUntil("the temporary key is accepted", () -> keys.authenticate(temporary.secret()).isPresent());
            admin().revoke(temporary.key().id());
            waitUntil("the temporary key is refused", () -> keys.authenticate(temporary.secret()).isEmpty());
            revokedSecrets.add(temporary.secret());
        }
        long seen = lookups.get();
        waitUntil("the readers keep looking up", () -> lookups.get() > seen + 4);
        done.set(true);
        for (Thread reader : readers) {
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(violations).isEmpty();
        assertThat(admin().list()).hasSize(11);
    }

    /** A key named {@code ingest} that may publish and one named {@code reader} that may read. */
    private record TwoKeys(CreatedKey ingest, CreatedKey reader) {}

    /** Creates {@link TwoKeys} and waits until {@code keys} accepts both. */
    private TwoKeys ingestAndReaderAccepted(ApiKeys keys) {
        CreatedKey ingest = admin().create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
        CreatedKey reader = admin().create("reader", List.of(Scope.of(Scope.Kind.READ)), 0);
        waitUntil("both keys are accepted", () -> keys.authenticate(ingest.secret()).isPresent()
                && keys.authenticate(reader.secret()).isPresent());
        return new TwoKeys(ingest, reader);
    }

    /** Polls {@code condition} until it holds, failing after {@link #CHANGE_SEEN_WITHIN}. */
    protected static void waitUntil(String what, BooleanSupplier condition) {
        Eventually.until(what, CHANGE_SEEN_WITHIN, condition::getAsBoolean);
    }
}
