package dev.interlace.integration.http;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, written for the tests so that a whole
 * {@code GET /metrics} body is checked line by line, independently of the library that wrote it.
 *
 * <p>Accepted: {@code # HELP name text} and {@code # TYPE name counter|gauge|histogram|summary|untyped} comments,
 * and samples {@code name{label="value",...} value [timestamp]}. Rejected with the line number: any other line
 * (blank lines and other comments included), invalid metric or label names, bad escapes, a value that is not a
 * float, a negative counter, a sample whose family has no TYPE before it, a family whose lines are not one contiguous
 * group, a TYPE or HELP given twice, the same series twice, a histogram bucket without {@code le}, buckets that are
 * not cumulative, and a histogram series without {@code _count} and {@code _sum} or whose {@code +Inf} bucket differs
 * from its {@code _count}.
 */
final class PrometheusText {

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern FLOAT = Pattern.compile("[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?");
    private static final Pattern TIMESTAMP = Pattern.compile("-?[0-9]+");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    /** One sample line. */
    record Sample(String name, Map<String, String> labels, double value) {}

    /** A metric family: its TYPE and HELP. */
    record Family(String name, String type, String help) {}

    private final Map<String, Family> families = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();

    private PrometheusText() {}

    /** Parses {@code body}; throws {@link IllegalArgumentException} naming the first line that breaks the format. */
    static PrometheusText parse(String body) {
        PrometheusText text = new PrometheusText();
        text.read(body);
        return text;
    }

    Map<String, Family> families() {
        return families;
    }

    List<Sample> samples() {
        return samples;
    }

    /**
     * The value of the one sample named {@code name} whose labels are exactly {@code labels} (name, value, name,
     * value, ...).
     */
    double value(String name, String... labels) {
        Map<String, String> wanted = labels(labels);
        List<Sample> found = samples.stream().filter(s -> s.name.equals(name) && s.labels.equals(wanted)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one sample " + name + wanted + ", found " + found.size() + "; samples"
                    + " of that name: " + samples.stream().filter(s -> s.name.equals(name)).toList());
        }
        return found.get(0).value;
    }

    /** Whether a sample named {@code name} with exactly {@code labels} exists. */
    boolean has(String name, String... labels) {
        Map<String, String> wanted = labels(labels);
        return samples.stream().anyMatch(s -> s.name.equals(name) && s.labels.equals(wanted));
    }

    /** The samples named {@code name} whose labels include {@code labels}. */
    List<Sample> matching(String name, String... labels) {
        Map<String, String> wanted = labels(labels);
        return samples.stream().filter(s -> s.name.equals(name)
                && s.labels.entrySet().containsAll(wanted.entrySet())).toList();
    }

    private static Map<String, String> labels(String... pairs) {
        if (pairs.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name, value pairs");
        }
        Map<String, String> map = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    // ---------------------------------------------------------------- parsing

    private void read(String body) {
        if (body.isEmpty() || !body.endsWith("\n")) {
            throw new IllegalArgumentException("the body must be non-empty and end with a line feed");
        }
        String[] lines = body.substring(0, body.length() - 1).split("\n", -1);
        Set<String> helped = new HashSet<>();
        Set<String> closedFamilies = new HashSet<>();
        Set<String> series = new HashSet<>();
        String currentFamily = null;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int number = i + 1;
            String family;
            if (line.startsWith("#")) {
                String[] parts = line.split(" ", 4);
                if (parts.length < 3 || !parts[0].equals("#") || !(parts[1].equals("HELP") || parts[1].equals("TYPE"))) {
                    throw fail(number, line, "only '# HELP name text' and '# TYPE name type' comments are allowed");
                }
                family = parts[2];
                if (!METRIC_NAME.matcher(family).matches()) {
                    throw fail(number, line, "invalid metric name " + family);
                }
                if (parts[1].equals("HELP")) {
                    String help = parts.length == 4 ? parts[3] : "";
                    checkHelpEscapes(number, line, help);
                    if (!helped.add(family)) {
                        throw fail(number, line, "second HELP for " + family);
                    }
                    Family known = families.get(family);
                    if (known != null) {
                        families.put(family, new Family(family, known.type, help));
                    } else {
                        families.put(family, new Family(family, null, help));
                    }
                } else {
                    if (parts.length != 4 || !TYPES.contains(parts[3])) {
                        throw fail(number, line, "TYPE must be one of " + TYPES);
                    }
                    Family known = families.get(family);
                    if (known != null && known.type != null) {
                        throw fail(number, line, "second TYPE for " + family);
                    }
                    families.put(family, new Family(family, parts[3], known == null ? null : known.help));
                }
            } else {
                Sample sample = sample(number, line);
                Family owner = familyOf(sample.name, sample.labels);
                if (owner == null) {
                    throw fail(number, line, "sample " + sample.name + " has no TYPE line before it");
                }
                if (!series.add(sample.name + sample.labels)) {
                    throw fail(number, line, "series given twice");
                }
                if (owner.type.equals("counter") && !(sample.value >= 0)) {
                    throw fail(number, line, "a counter is never negative or NaN");
                }
                samples.add(sample);
                family = owner.name;
            }
            if (!family.equals(currentFamily)) {
                if (currentFamily != null) {
                    closedFamilies.add(currentFamily);
                }
                if (closedFamilies.contains(family)) {
                    throw fail(number, line, "the lines of " + family + " are not one contiguous group");
                }
                currentFamily = family;
            }
        }
        checkHistograms();
    }

    /** The family a sample belongs to, or null when none with a TYPE matches. */
    private Family familyOf(String name, Map<String, String> labels) {
        Family exact = families.get(name);
        if (exact != null && exact.type != null && !exact.type.equals("histogram")) {
            if (exact.type.equals("summary") && !labels.containsKey("quantile")) {
                return null;
            }
            return exact;
        }
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (name.endsWith(suffix)) {
                Family base = families.get(name.substring(0, name.length() - suffix.length()));
                if (base == null || base.type == null) {
                    continue;
                }
                if (base.type.equals("histogram") && (!suffix.equals("_bucket") || labels.containsKey("le"))) {
                    return base;
                }
                if (base.type.equals("summary") && !suffix.equals("_bucket")) {
                    return base;
                }
            }
        }
        return null;
    }

    private Sample sample(int number, String line) {
        int at = 0;
        while (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ') {
            at++;
        }
        String name = line.substring(0, at);
        if (!METRIC_NAME.matcher(name).matches()) {
            throw fail(number, line, "invalid metric name '" + name + "'");
        }
        Map<String, String> labels = new TreeMap<>();
        if (at < line.length() && line.charAt(at) == '{') {
            at++;
            while (true) {
                int nameStart = at;
                while (at < line.length() && line.charAt(at) != '=') {
                    at++;
                }
                String label = line.substring(nameStart, at);
                if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
                    throw fail(number, line, "invalid label name '" + label + "'");
                }
                if (at + 1 >= line.length() || line.charAt(at + 1) != '"') {
                    throw fail(number, line, "label value must be quoted");
                }
                at += 2;
                StringBuilder value = new StringBuilder();
                while (true) {
                    if (at >= line.length()) {
                        throw fail(number, line, "unterminated label value");
                    }
                    char c = line.charAt(at++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (at >= line.length()) {
                            throw fail(number, line, "dangling escape");
                        }
                        char escaped = line.charAt(at++);
                        switch (escaped) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> throw fail(number, line, "invalid escape \\" + escaped);
                        }
                    } else {
                        value.append(c);
                    }
                }
                if (labels.put(label, value.toString()) != null) {
                    throw fail(number, line, "label " + label + " given twice");
                }
                if (at >= line.length()) {
                    throw fail(number, line, "unterminated label set");
                }
                char next = line.charAt(at++);
                if (next == '}') {
                    break;
                }
                if (next != ',') {
                    throw fail(number, line, "expected ',' or '}' after a label");
                }
            }
        }
        if (at >= line.length() || line.charAt(at) != ' ') {
            throw fail(number, line, "expected one space before the value");
        }
        String[] rest = line.substring(at + 1).split(" ", -1);
        if (rest.length < 1 || rest.length > 2) {
            throw fail(number, line, "expected a value and an optional timestamp");
        }
        double value = parseValue(number, line, rest[0]);
        if (rest.length == 2 && !TIMESTAMP.matcher(rest[1]).matches()) {
            throw fail(number, line, "invalid timestamp " + rest[1]);
        }
        return new Sample(name, labels, value);
    }

    private static double parseValue(int number, String line, String text) {
        switch (text) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            case "NaN":
                return Double.NaN;
            default:
                if (!FLOAT.matcher(text).matches()) {
                    throw fail(number, line, "value '" + text + "' is not a float");
                }
                return Double.parseDouble(text);
        }
    }

    private static void checkHelpEscapes(int number, String line, String help) {
        for (int i = 0; i < help.length(); i++) {
            if (help.charAt(i) == '\\') {
                if (i + 1 >= help.length() || (help.charAt(i + 1) != '\\' && help.charAt(i + 1) != 'n')) {
                    throw fail(number, line, "HELP allows only \\\\ and \\n escapes");
                }
                i++;
            }
        }
    }

    /** Every histogram series: cumulative buckets ending in +Inf, which equals _count; _sum present. */
    private void checkHistograms() {
        for (Family family : families.values()) {
            if (!"histogram".equals(family.type)) {
                continue;
            }
            Map<Map<String, String>, TreeMap<Double, Double>> buckets = new LinkedHashMap<>();
            for (Sample sample : samples) {
                if (sample.name.equals(family.name + "_bucket")) {
                    Map<String, String> key = new TreeMap<>(sample.labels);
                    String le = key.remove("le");
                    double bound = parseValue(0, sample.toString(), le);
                    buckets.computeIfAbsent(key, k -> new TreeMap<>()).put(bound, sample.value);
                }
            }
            for (Map<String, String> key : buckets.keySet()) {
                if (!has(family.name + "_count", flatten(key))) {
                    throw new IllegalArgumentException(family.name + key + " has buckets but no _count");
                }
            }
            for (Sample count : samples) {
                if (!count.name.equals(family.name + "_count")) {
                    continue;
                }
                if (!has(family.name + "_sum", flatten(count.labels))) {
                    throw new IllegalArgumentException(family.name + count.labels + " has a _count but no _sum");
                }
                TreeMap<Double, Double> series = buckets.get(count.labels);
                if (series == null) {
                    continue; // a histogram without buckets (no boundaries configured) is still valid
                }
                double previous = 0;
                for (double cumulative : series.values()) {
                    if (cumulative < previous) {
                        throw new IllegalArgumentException(family.name + count.labels + " buckets are not cumulative: "
                                + series);
                    }
                    previous = cumulative;
                }
                Double infinity = series.get(Double.POSITIVE_INFINITY);
                if (infinity == null || infinity != count.value) {
                    throw new IllegalArgumentException(family.name + count.labels + " +Inf bucket " + infinity
                            + " differs from _count " + count.value);
                }
            }
        }
    }

    private static String[] flatten(Map<String, String> labels) {
        List<String> pairs = new ArrayList<>();
        labels.forEach((name, value) -> {
            pairs.add(name);
            pairs.add(value);
        });
        return pairs.toArray(String[]::new);
    }

    private static IllegalArgumentException fail(int number, String line, String problem) {
        return new IllegalArgumentException("line " + number + ": " + problem + ": " + line);
    }
}
