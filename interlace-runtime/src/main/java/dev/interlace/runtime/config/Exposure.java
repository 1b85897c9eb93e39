package dev.interlace.runtime.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;

/**
 * How the server may be reached: whether it may run without keys off loopback, which {@code Host} names and
 * browser origins it accepts, and its TLS certificate.
 *
 * @param insecureNoAuth serve without API keys on a non-loopback address (warned about at every start)
 * @param allowedHosts extra {@code Host} names accepted (host part, lower case), besides the loopback names
 * @param corsOrigins browser origins (e.g. {@code https://app.example}) allowed to call the API, with CORS answers
 * @param tlsCertificate PEM certificate chain, or null for plain HTTP
 * @param tlsKey PEM private key (PKCS#8) of the certificate, or null
 */
public record Exposure(boolean insecureNoAuth, List<String> allowedHosts, List<String> corsOrigins,
        Path tlsCertificate, Path tlsKey) {

    public Exposure {
        allowedHosts = List.copyOf(allowedHosts);
        corsOrigins = List.copyOf(corsOrigins);
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new ConfigException("--tls-cert and --tls-key go together: give both, or neither");
        }
    }

    /** Plain HTTP, keys required off loopback, no extra hosts or origins. */
    public static Exposure defaults() {
        return new Exposure(false, List.of(), List.of(), null, null);
    }

    public boolean tls() {
        return tlsCertificate != null;
    }

    /** Whether {@code bind} only listens on the loopback interface (127.0.0.0/8, ::1, localhost). */
    public static boolean isLoopback(String bind) {
        if (bind.equalsIgnoreCase("localhost")) {
            return true;
        }
        String literal = bind.startsWith("[") && bind.endsWith("]") ? bind.substring(1, bind.length() - 1) : bind;
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // a host name other than localhost: its address may change, so it is not loopback
        }
        try {
            return InetAddress.getByName(literal).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
