package dev.interlace.runtime.http;

import java.util.List;

/**
 * The routes of one concern (publishing, streams, runs...). {@link HttpModule} binds every set into a Guice
 * multibinder; {@link HttpApi} asks each, in binding order, to add its routes. A new concern's routes are a new
 * class implementing this and one {@code addBinding()} line in the module.
 */
interface RouteSet {

    /** Adds this set's routes to {@code routes}. */
    void register(List<Route> routes);
}
