package dev.interlace.runtime.auth;

import java.util.Optional;

/**
 * The keys a running server accepts, kept current with the key file in the data directory: a key created or revoked
 * by {@code interlace keys} while the server runs is seen within a second. {@link KeyFile} is the implementation of a
 * single node; a log shared by several nodes may bind one that shares the keys of every node's file between them.
 */
public interface ApiKeys {

    /** Whether there is no live key (revoked ones do not count): the condition for open mode. */
    boolean isEmpty();

    /**
     * The live key whose secret this is (compared by its SHA-256 hash, in constant time), or empty. Records the use
     * as the key's last use, at most once a minute per key.
     */
    Optional<ApiKey> authenticate(String secret);

    /**
     * The live key with this id, or empty: for a request another node forwarded, which names its key by id only,
     * and for an admin naming a key to grant a consumer group to.
     */
    Optional<ApiKey> live(String id);
}
