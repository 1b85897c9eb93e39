/**
 * The fixture streams and models of the integration tests: {@code orders} and {@code clicks} ({@link
 * dev.interlace.integration.Orders}, {@link dev.interlace.integration.Clicks}), the Java model {@code order_sizes}
 * and the SQL models under {@code src/test/resources/models} ({@code revenue_per_day}, {@code revenue_summary},
 * {@code clicks_enriched}). They have the shapes of the example application's, so that a test reads like the
 * README, but they are this module's own: the tests here are about the server, not about the example application,
 * and do not depend on it. The subpackages hold the tests, one per area (http, cli, decoding, crash, kafka ...).
 */
package dev.interlace.integration;
