package dev.interlace.runtime.http;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.http.netty.NettyTransport;
import dev.interlace.runtime.ingest.IngestLimits;

/** The HTTP API, its routes, and the transport that serves them (Netty; tests and benchmarks may swap it). */
public final class HttpModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(HttpApi.class).in(Singleton.class);
        bind(HttpTransport.class).to(NettyTransport.class);
    }

    @Provides
    @Singleton
    HttpLimits httpLimits(IngestLimits limits) {
        return HttpLimits.defaults(limits.maxBodyBytes());
    }
}
