package dev.interlace.runtime.http;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.http.netty.NettyTransport;
import dev.interlace.runtime.ingest.IngestLimits;
import java.util.List;

/** The HTTP API, its routes (a multibinder of {@link RouteSet}s), and the transport that serves them (Netty; tests and benchmarks may swap it). */
public final class HttpModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(HttpApi.class).in(Singleton.class);
        // One instance: it parks long polls that HttpApi wakes when it stops.
        bind(ConsumerRoutes.class).in(Singleton.class);
        // The order routes are tried in, and the order of the methods a 405 names.
        List<Class<? extends RouteSet>> sets = List.of(PublishRoutes.class, StreamRoutes.class,
                QuarantineRoutes.class, HealthRoutes.class, SqlRoutes.class, RunRoutes.class, ConsumerRoutes.class,
                RecordRoutes.class, MetricsRoutes.class, ConsoleRoutes.class, ClusterRoutes.class, BackupRoutes.class,
                ClusterStatusRoutes.class);
        Multibinder<RouteSet> routes = Multibinder.newSetBinder(binder(), RouteSet.class);
        sets.forEach(set -> routes.addBinding().to(set));
        bind(PageSlots.class).in(Singleton.class);
        bind(dev.interlace.runtime.ingest.RemoteParts.class).to(PartForwarding.class).in(Singleton.class);
        bind(NettyTransport.class).in(Singleton.class);
        bind(HttpTransport.class).to(NettyTransport.class);
    }

    @Provides
    @Singleton
    HttpLimits httpLimits(IngestLimits limits, InterlaceConfig config) {
        return HttpLimits.defaults(limits.maxBodyBytes(), config.connections());
    }
}
