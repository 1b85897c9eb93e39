package dev.interlace.runtime.log;

/**
 * Asked by a read before it fetches each entry's payload whether the reader may hold that many more bytes (a memory
 * budget); when it says no, the read ends there and returns the entries before it. A read with an allowance thus
 * holds no payload the allowance refused.
 */
@FunctionalInterface
public interface PayloadAllowance {

    /** Grants every payload. */
    PayloadAllowance UNLIMITED = payloadBytes -> true;

    /** Whether the reader may also hold a payload of {@code payloadBytes} bytes; once false, the read ends. */
    boolean admit(long payloadBytes);
}
