package dev.interlace.runtime.auth.tck;

import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import java.nio.file.Path;

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
        return KeyAdministration.ofKeyFile(dataDirectory);
    }
}
