package dev.interlace.runtime.auth.tck;

import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import java.nio.file.Path;
import java.util.List;

/**
 * The key file against the {@link ApiKeysContract}: the reference run. The server's view is a {@link KeyFile} opened
 * on the data directory; the administration side opens a key file of its own for each change, as the
 * {@code interlace keys} command does from another process.
 */
class KeyFileApiKeysContractTest extends ApiKeysContract {

    @Override
    protected ApiKeys openKeys(Path dataDirectory) {
        return KeyFile.open(dataDirectory);
    }

    @Override
    protected KeyAdministration administration(Path dataDirectory) {
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
                    return keys.list().stream().map(listed -> new ListedKey(listed.key(), listed.revoked())).toList();
                }
            }
        };
    }
}
