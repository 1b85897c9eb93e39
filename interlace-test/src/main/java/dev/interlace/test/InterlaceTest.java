package dev.interlace.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs an Interlace server with the streams and models on the test's class path, on a temporary data directory, and
 * injects a {@link TestInterlace} into test methods (and lifecycle methods) that declare one as a parameter.
 *
 * <pre>{@code
 * @InterlaceTest
 * class OrdersTest {
 *     @Test
 *     void revenueCountsEveryOrder(TestInterlace interlace) {
 *         interlace.publish("orders", "{\"order_id\": \"o1\", \"total\": 10}");
 *         interlace.awaitMaterialised();
 *         assertEquals(1L, interlace.sql("SELECT count(*) AS n FROM streams.orders").get(0).get("n"));
 *     }
 * }
 * }</pre>
 *
 * <p>To configure the server in code (e.g. Guice overrides), use {@link InterlaceExtension} with
 * {@code @RegisterExtension} instead.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(InterlaceExtension.class)
public @interface InterlaceTest {

    /** Whether each test method gets a fresh server and data directory (the default) or the class shares one. */
    Isolation isolation() default Isolation.PER_TEST;

    /** Extra {@code serve} flags, e.g. {@code {"--max-pending", "100"}}; the port and data directory are the kit's. */
    String[] flags() default {};
}
