package dev.interlace.runtime.http.tck;

import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.http.HttpLimits;
import dev.interlace.runtime.http.HttpTransport;
import dev.interlace.runtime.http.netty.NettyTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The Netty transport against the {@link HttpTransportContract}: the reference run (plain HTTP, default settings). */
class NettyTransportContractTest extends HttpTransportContract {

    @Override
    protected HttpTransport newTransport(HttpLimits limits) {
        return new NettyTransport(limits, InterlaceConfig.defaults(), new SimpleMeterRegistry());
    }
}
