package dev.interlace.runtime.http;

/**
 * What one connection has proved of the cluster secret: nothing, a challenge under way, or an authenticated session
 * of another node ({@code POST /_cluster/session}, {@link ClusterRoutes}). The transport keeps one per connection and
 * gives it to each request read on it; requests on an authenticated session are forwarded requests without a
 * signature of their own, and may be served concurrently (their answers still go back in order).
 */
public final class PeerSession {

    private String connectingNonce;
    private String acceptingNonce;
    private volatile boolean authenticated;

    /** Whether another node proved the cluster secret on this connection. */
    public boolean authenticated() {
        return authenticated;
    }

    /** The challenge of a session being opened: both nonces, kept until the other node answers it (once). */
    synchronized void challenged(String connecting, String accepting) {
        this.connectingNonce = connecting;
        this.acceptingNonce = accepting;
    }

    /**
     * The challenge under way, as {@code {connecting, accepting}} nonces, forgotten as it is taken (a proof is
     * checked once); null when none is.
     */
    synchronized String[] takeChallenge() {
        if (connectingNonce == null) {
            return null;
        }
        String[] challenge = {connectingNonce, acceptingNonce};
        connectingNonce = null;
        acceptingNonce = null;
        return challenge;
    }

    void authenticate() {
        authenticated = true;
    }
}
