package dev.interlace.client;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named sequencers this client could not reach, until when it does not send to them again: a node that advertises an
 * address the client cannot reach (behind a load balancer, say) would otherwise cost a connect timeout on every other
 * request. At most {@value #AT_MOST} (answers choose what goes in).
 */
final class AvoidedNodes implements SequencerRouter.Avoided {

    private static final int AT_MOST = 64;
    private static final long AVOID_NANOS = 60_000_000_000L;

    private final Map<URI, Long> until = new ConcurrentHashMap<>();

    @Override
    public void avoid(URI node) {
        if (until.size() >= AT_MOST) {
            until.clear();
        }
        until.put(node, System.nanoTime() + AVOID_NANOS);
    }

    @Override
    public boolean avoiding(URI node) {
        Long when = until.get(node);
        if (when != null && System.nanoTime() - when > 0) {
            until.remove(node, when);
            return false;
        }
        return when != null;
    }
}
