package dev.interlace.runtime.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.interlace.runtime.testing.Eventually;
import dev.interlace.runtime.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFileTest {

    @TempDir
    Path dataDirectory;

    @Test
    void aDataDirectoryWithoutAKeyFileHasNoKeys() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            assertThat(keys.isEmpty()).isTrue();
            assertThat(keys.list()).isEmpty();
            assertThat(keys.authenticate("ilk_anything")).isEmpty();
        }
        assertThat(KeyFile.file(dataDirectory)).doesNotExist();
    }

    @Test
    void createdKeysAreListedAndRevokedKeysStayListedAsRevoked() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            KeyFile.CreatedKey ingest = keys.create("ingest", List.of(Scope.publish("orders"), Scope.of(Scope.Kind.READ)),
                    50);
            KeyFile.CreatedKey ops = keys.create("ops", List.of(Scope.of(Scope.Kind.ADMIN)), 0);

            assertThat(ingest.key().id()).matches("key_[0-9a-f]{8}");
            assertThat(ingest.secret()).startsWith("ilk_").hasSize(4 + 43).matches("ilk_[A-Za-z0-9_-]{43}");
            assertThat(ingest.secret()).isNotEqualTo(ops.secret());
            assertThat(keys.list()).extracting(listed -> listed.key().name()).containsExactly("ingest", "ops");
            KeyFile.ListedKey listed = keys.list().get(0);
            assertThat(listed.key().scopes()).containsExactly(Scope.publish("orders"), Scope.of(Scope.Kind.READ));
            assertThat(listed.key().quotaEventsPerSecond()).isEqualTo(50);
            assertThat(listed.key().createdAtMicros()).isPositive();
            assertThat(listed.key().lastUsedAtMicros()).isZero();
            assertThat(listed.revoked()).isFalse();

            KeyFile.RevokedKey revoked = keys.revoke("ingest");
            assertThat(revoked.key().id()).isEqualTo(ingest.key().id());
            assertThat(revoked.noLiveKeyLeft()).isFalse();
            assertThat(keys.list()).extracting(KeyFile.ListedKey::revoked).containsExactly(true, false);

            KeyFile.RevokedKey last = keys.revoke(ops.key().id());
            assertThat(last.noLiveKeyLeft()).isTrue();
            assertThat(keys.isEmpty()).isTrue();
        }
    }

    @Test
    void revokingAnUnknownOrRevokedKeyIsAClearError() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            keys.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
            keys.revoke("ingest");
            assertThatThrownBy(() -> keys.revoke("nobody")).isInstanceOf(NoSuchElementException.class)
                    .hasMessageContaining("no key named or with id \"nobody\"");
            assertThatThrownBy(() -> keys.revoke("ingest")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already revoked");
        }
    }

    @Test
    void aLiveNameCannotBeTakenTwiceButARevokedOneCanBeReused() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            keys.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
            assertThatThrownBy(() -> keys.create("ingest", List.of(Scope.of(Scope.Kind.READ)), 0))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("a key named \"ingest\" exists");
            keys.revoke("ingest");
            keys.create("ingest", List.of(Scope.of(Scope.Kind.READ)), 0);
            assertThat(keys.list()).hasSize(2);
        }
    }

    @Test
    void namesScopesAndQuotasAreChecked() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            assertThatThrownBy(() -> keys.create("has space", List.of(Scope.of(Scope.Kind.READ)), 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> keys.create("key_0123abcd", List.of(Scope.of(Scope.Kind.READ)), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("looks like a key id");
            assertThatThrownBy(() -> keys.create("ok", List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> keys.create("ok", List.of(Scope.of(Scope.Kind.READ)), -1))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> keys.create("ok", List.of(Scope.of(Scope.Kind.READ)), Double.NaN))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> keys.create("ok", List.of(Scope.of(Scope.Kind.READ)), 0, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bytes per second");
        }
    }

    @Test
    void aByteQuotaIsStoredAsQuotaBytesAndAFileWrittenBeforeByteQuotasReadsAsNone() throws Exception {
        StoredKey bulky;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            keys.create("bulky", List.of(Scope.of(Scope.Kind.PUBLISH)), 0, 1_048_576);
            bulky = keys.stored().get(0);
            assertThat(keys.list().get(0).key().quotaBytesPerSecond()).isEqualTo(1_048_576);
        }
        String file = Files.readString(KeyFile.file(dataDirectory));
        assertThat(file).contains("\"quota_bytes\" : 1048576");
        assertThat(StoredKey.fromJson(bulky.toJson())).as("the form a Kafka cluster shares keys in carries it")
                .isEqualTo(bulky);

        Files.writeString(KeyFile.file(dataDirectory), file.replace("\"quota_bytes\" : 1048576,", ""));
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            assertThat(keys.list().get(0).key().quotaBytesPerSecond()).isZero();
        }
        Files.writeString(KeyFile.file(dataDirectory), file.replace("1048576", "-1"));
        assertThatThrownBy(() -> KeyFile.open(dataDirectory)).isInstanceOf(KeyFileException.class)
                .hasMessageContaining("\"quota_bytes\" is not a whole number of bytes per second");
        Files.writeString(KeyFile.file(dataDirectory), file.replace("1048576", "1.5"));
        assertThatThrownBy(() -> KeyFile.open(dataDirectory)).isInstanceOf(KeyFileException.class);
    }

    @Test
    void theFileHoldsTheHashButNeverTheSecret() throws Exception {
        String secret;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            secret = keys.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0).secret();
        }
        byte[] bytes = Files.readAllBytes(KeyFile.file(dataDirectory));
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        assertThat(text).doesNotContain(secret).doesNotContain(secret.substring(4))
                .doesNotContain(secret.substring(4, 24));
        assertThat(text).contains(java.util.HexFormat.of().formatHex(KeyFile.sha256(secret)));
        try (var files = Files.list(dataDirectory)) {
            for (Path file : files.toList()) {
                assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).as(file.toString())
                        .doesNotContain(secret.substring(4));
            }
        }
    }

    @Test
    void theFileAndItsLockAreReadableAndWritableOnlyByTheOwner() throws Exception {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            keys.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0);
            keys.create("ops", List.of(Scope.of(Scope.Kind.ADMIN)), 0);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(KeyFile.file(dataDirectory))))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dataDirectory.resolve("keys.json.lock")))).isEqualTo("rw-------");
        try (var files = Files.list(dataDirectory)) {
            assertThat(files.map(file -> file.getFileName().toString()).toList())
                    .containsExactlyInAnyOrder("keys.json", "keys.json.lock");
        }
    }

    @Test
    void authenticateAcceptsTheRightSecretOnlyWhileTheKeyIsLive() {
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            KeyFile.CreatedKey created = keys.create("ingest", List.of(Scope.publish("orders")), 0);
            Optional<ApiKey> key = keys.authenticate(created.secret());
            assertThat(key).isPresent();
            assertThat(key.get().id()).isEqualTo(created.key().id());
            assertThat(key.get().allows(Scope.publish("orders"))).isTrue();
            assertThat(key.get().allows(Scope.publish("clicks"))).isFalse();

            assertThat(keys.authenticate(created.secret() + "x")).isEmpty();
            String secret = created.secret();
            char last = secret.charAt(secret.length() - 1);
            assertThat(keys.authenticate(secret.substring(0, secret.length() - 1) + (last == 'A' ? 'B' : 'A')))
                    .isEmpty();
            assertThat(keys.authenticate("")).isEmpty();
            assertThat(keys.authenticate(null)).isEmpty();

            keys.revoke("ingest");
            assertThat(keys.authenticate(created.secret())).isEmpty();
        }
    }

    @Test
    void aKeyCreatedOrRevokedByAnotherInstanceIsSeenWithinASecond() throws Exception {
        try (KeyFile server = KeyFile.open(dataDirectory)) {
            assertThat(server.isEmpty()).isTrue();
            String secret;
            try (KeyFile cli = KeyFile.open(dataDirectory)) {
                secret = cli.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0).secret();
            }
            assertThat(within(1000, () -> server.authenticate(secret).isPresent())).isTrue();
            assertThat(server.isEmpty()).isFalse();

            try (KeyFile cli = KeyFile.open(dataDirectory)) {
                assertThat(cli.revoke("ingest").noLiveKeyLeft()).isTrue();
            }
            assertThat(within(1000, () -> server.authenticate(secret).isEmpty())).isTrue();
            assertThat(server.isEmpty()).isTrue();
        }
    }

    @Test
    void concurrentCreatesFromTwoInstancesLoseNoKey() throws Exception {
        int perInstance = 25;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (KeyFile first = KeyFile.open(dataDirectory); KeyFile second = KeyFile.open(dataDirectory)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (KeyFile instance : List.of(first, second)) {
                String prefix = instance == first ? "first-" : "second-";
                done.add(pool.submit((Callable<Void>) () -> {
                    start.await();
                    for (int i = 0; i < perInstance; i++) {
                        instance.create(prefix + i, List.of(Scope.of(Scope.Kind.READ)), 0);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
            assertThat(first.list()).hasSize(2 * perInstance);
            assertThat(first.list().stream().map(listed -> listed.key().id()).distinct()).hasSize(2 * perInstance);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCorruptFileIsAnErrorNamingTheFileNotAnEmptyKeyStore() throws Exception {
        Files.writeString(KeyFile.file(dataDirectory), "{\"format\":1,\"keys\":[{\"id\":\"key_0\"");
        assertThatThrownBy(() -> KeyFile.open(dataDirectory)).isInstanceOf(KeyFileException.class)
                .hasMessageContaining(KeyFile.file(dataDirectory).toString()).hasMessageContaining("not valid");

        Files.writeString(KeyFile.file(dataDirectory), "");
        assertThatThrownBy(() -> KeyFile.open(dataDirectory)).isInstanceOf(KeyFileException.class);

        Files.writeString(KeyFile.file(dataDirectory), "{\"format\":1,\"keys\":[{\"id\":\"key_0123abcd\","
                + "\"name\":\"x\",\"scopes\":\"write\",\"sha256\":\"00\"}]}");
        assertThatThrownBy(() -> KeyFile.open(dataDirectory)).isInstanceOf(KeyFileException.class)
                .hasMessageContaining("unknown scope");
    }

    @Test
    void aFileCorruptedWhileRunningKeepsTheKeysReadBefore() throws Exception {
        try (KeyFile server = KeyFile.open(dataDirectory)) {
            String secret = server.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0).secret();
            Files.writeString(KeyFile.file(dataDirectory), "not json");
            assertThatThrownBy(server::reloadIfChanged).isInstanceOf(KeyFileException.class);
            assertThat(server.authenticate(secret)).isPresent();
            assertThat(server.isEmpty()).isFalse();
            assertThatThrownBy(() -> server.create("other", List.of(Scope.of(Scope.Kind.READ)), 0))
                    .isInstanceOf(KeyFileException.class);
        }
    }

    @Test
    void lastUseIsRecordedAtMostOnceAMinuteAndWrittenBackByTheServer() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (KeyFile server = KeyFile.open(dataDirectory, clock)) {
            String secret = server.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 0).secret();
            long first = server.authenticate(secret).orElseThrow().lastUsedAtMicros();
            assertThat(first).isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli() * 1000);

            clock.set(Instant.parse("2026-01-01T00:00:30Z"));
            assertThat(server.authenticate(secret).orElseThrow().lastUsedAtMicros()).isEqualTo(first);
            clock.set(Instant.parse("2026-01-01T00:01:00Z"));
            assertThat(server.authenticate(secret).orElseThrow().lastUsedAtMicros()).isGreaterThan(first);

            assertThat(within(1000, () -> {
                try (KeyFile cli = KeyFile.open(dataDirectory)) {
                    return cli.list().get(0).key().lastUsedAtMicros()
                            == Instant.parse("2026-01-01T00:01:00Z").toEpochMilli() * 1000;
                }
            })).isTrue();
            assertThat(Files.readString(KeyFile.file(dataDirectory))).contains("\"last_used_at\" : \"2026-01-01T00:01:00Z\"");
        }
    }

    @Test
    void mergedCopiesAddKeysRevokeEverywhereAndNeverBringARevokedKeyBack(@TempDir Path other) {
        try (KeyFile here = KeyFile.open(dataDirectory); KeyFile there = KeyFile.open(other)) {
            KeyFile.CreatedKey created = here.create("ingest", List.of(Scope.of(Scope.Kind.PUBLISH)), 10);
            StoredKey live = here.stored().get(0);
            assertThat(StoredKey.fromJson(live.toJson())).isEqualTo(live);
            assertThat(new String(live.toJson(), StandardCharsets.UTF_8)).doesNotContain(created.secret());

            assertThat(there.merge(here.stored())).isEmpty();
            assertThat(there.authenticate(created.secret()).map(ApiKey::id)).contains(created.key().id());

            there.revoke("ingest");
            StoredKey revoked = there.stored().get(0);
            assertThat(here.merge(List.of(revoked))).isEmpty();
            assertThat(here.authenticate(created.secret())).as("revoked by the copy").isEmpty();
            assertThat(here.merge(List.of(live))).isEmpty();
            assertThat(here.stored().get(0).live()).as("an older live copy does not bring it back").isFalse();
            assertThat(live.mergedWith(revoked)).isEqualTo(revoked.mergedWith(live));

            StoredKey impostor = new StoredKey(live.id(), "other", live.scopes(), new byte[32], live.createdAtMicros(),
                    0, 0, 0, 0);
            assertThat(here.merge(List.of(impostor))).as("a different key with the same id is left out")
                    .containsExactly(live.id());
            assertThat(here.stored()).extracting(StoredKey::name).containsExactly("ingest");
        }
    }

    private static boolean within(long millis, Callable<Boolean> condition) throws Exception {
        try {
            Eventually.until("the condition holds", Duration.ofMillis(millis), condition::call);
            return true;
        } catch (AssertionError timedOut) {
            return condition.call();
        }
    }
}
