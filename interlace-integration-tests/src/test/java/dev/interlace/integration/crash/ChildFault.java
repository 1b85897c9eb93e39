package dev.interlace.integration.crash;

import java.util.Arrays;
import java.util.Locale;

/**
 * A fault a crash child is told on its command line, one constant of an enum: its argument is its name in lower case
 * with hyphens ({@code BEFORE_COMMIT} is {@code before-commit}), and {@link #parse} reads an argument back.
 */
public interface ChildFault {

    /** The constant's name ({@link Enum#name()}). */
    String name();

    /** The name used on the child's command line and in its fault marker. */
    default String argument() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The fault of {@code type} whose argument is {@code argument}, in any case, with hyphens or underscores. */
    static <F extends Enum<F> & ChildFault> F parse(Class<F> type, String argument) {
        for (F fault : type.getEnumConstants()) {
            if (fault.argument().equals(argument.toLowerCase(Locale.ROOT).replace('_', '-'))) {
                return fault;
            }
        }
        throw new IllegalArgumentException("unknown " + type.getSimpleName() + " \"" + argument + "\"; expected one of "
                + Arrays.stream(type.getEnumConstants()).map(ChildFault::argument).toList());
    }
}
