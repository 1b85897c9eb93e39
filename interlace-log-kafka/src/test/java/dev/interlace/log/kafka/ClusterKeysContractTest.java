package dev.interlace.log.kafka;

import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.tck.ApiKeysContract;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The cluster's keys against the {@link ApiKeysContract}, on the shared one-node cluster: the server's view is a
 * {@link ClusterKeys} over the data directory's key file, under a topic prefix of its own per data directory (so a
 * test starts with no keys on the cluster, and a server started later on the same directory finds the same topic);
 * the administration side is {@code interlace keys}, a key file of its own for each change.
 */
class ClusterKeysContractTest extends ApiKeysContract {

    @Override
    protected ApiKeys openKeys(Path dataDirectory) {
        KeyFile file = KeyFile.open(dataDirectory);
        ClusterKeys keys = new ClusterKeys(KafkaStreamLogContractTest.settingsFor(dataDirectory), file);
        return new Node(keys, file);
    }

    /** A node's keys as the server holds them: the cluster's, then the key file they keep in step, closed in order. */
    private record Node(ClusterKeys keys, KeyFile file) implements ApiKeys, AutoCloseable {
        @Override
        public boolean isEmpty() {
            return keys.isEmpty();
        }

        @Override
        public Optional<ApiKey> authenticate(String secret) {
            return keys.authenticate(secret);
        }

        @Override
        public Optional<ApiKey> live(String id) {
            return keys.live(id);
        }

        @Override
        public void close() {
            keys.close();
            file.close();
        }
    }

    @Override
    protected KeyAdministration administration(Path dataDirectory) {
        return KeyAdministration.ofKeyFile(dataDirectory);
    }
}
