package dev.interlace.runtime.http;

import com.google.inject.AbstractModule;
import com.google.inject.Singleton;

/** The HTTP API and its routes. */
public final class HttpModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(HttpApi.class).in(Singleton.class);
    }
}
