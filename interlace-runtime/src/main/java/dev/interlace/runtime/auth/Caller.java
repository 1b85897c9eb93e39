package dev.interlace.runtime.auth;

/**
 * Who made a request, as records and metrics name it: the key's public id and name, never its secret.
 *
 * @param keyId the key's id, or null when the request carried no key (open mode, or a route open to all)
 * @param keyName the key's name, or null likewise
 * @param key the key, or null
 */
public record Caller(String keyId, String keyName, ApiKey key) {

    /** No key: open mode, or a route anyone may call. */
    public static final Caller NONE = new Caller(null, null, null);

    public static Caller of(ApiKey key) {
        return new Caller(key.id(), key.name(), key);
    }

    /** The label for metrics and logs: the key's name, or {@code none}. */
    public String label() {
        return keyName == null ? "none" : keyName;
    }
}
