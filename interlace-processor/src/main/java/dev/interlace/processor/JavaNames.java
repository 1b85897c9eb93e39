package dev.interlace.processor;

import java.util.Collection;
import java.util.Set;
import javax.lang.model.SourceVersion;

/** Turns column names into Java identifiers that compile and read naturally. */
final class JavaNames {

    /** Names a record component may not have: they would clash with methods every record has. */
    private static final Set<String> FORBIDDEN_COMPONENTS = Set.of(
            "clone", "finalize", "getClass", "hashCode", "notify", "notifyAll", "toString", "wait");

    private JavaNames() {}

    /** {@code order_id} becomes {@code orderId}. */
    static String camelCase(String column) {
        StringBuilder out = new StringBuilder(column.length());
        boolean upper = false;
        for (int i = 0; i < column.length(); i++) {
            char c = column.charAt(i);
            if (c == '_') {
                upper = out.length() > 0;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    /**
     * A record component name for {@code column} that is not a Java keyword, not a method every record has and not
     * in {@code taken}: {@code class} becomes {@code class_}.
     */
    static String componentName(String column, Collection<String> taken) {
        String name = camelCase(column);
        if (SourceVersion.isKeyword(name) || FORBIDDEN_COMPONENTS.contains(name) || name.equals("_")) {
            name = name + "_";
        }
        return unique(name, taken);
    }

    /** {@code name}, or {@code name} followed by underscores until it is not in {@code taken}. */
    static String unique(String name, Collection<String> taken) {
        String candidate = name;
        while (taken.contains(candidate)) {
            candidate = candidate + "_";
        }
        return candidate;
    }
}
