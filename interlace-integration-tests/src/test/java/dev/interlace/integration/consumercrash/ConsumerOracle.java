package dev.interlace.integration.consumercrash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Judges consumer runs from their side effects (the offsets each consumer processed) and from the group operations
 * the consumers' proxies recorded. Every check returns violations (empty = passed) so a negative control can require
 * a failure.
 */
final class ConsumerOracle {

    private ConsumerOracle() {}

    /** One processed event, as a consumer wrote it. */
    record Processed(long offset, String orderId) {}

    /**
     * One recorded group operation of {@code owner}.
     *
     * @param value the committed offset a lease answered, or the offset a commit asked for
     */
    record Op(String owner, String op, int status, long token, long value, String error, long sentMicros,
            long receivedMicros) {

        boolean grantedLease() {
            return op.equals("lease") && status == 200;
        }

        boolean acceptedCommit() {
            return op.equals("commit") && status == 200;
        }

        @Override
        public String toString() {
            return owner + ":" + op + "(" + status + (error.equals("-") ? "" : " " + error) + ", token " + token
                    + ", " + value + ")";
        }
    }

    static List<Processed> processed(Path file) throws IOException {
        List<Processed> result = new ArrayList<>();
        for (String[] parts : records(file)) {
            result.add(new Processed(Long.parseLong(parts[0]), parts.length > 1 ? parts[1] : "?"));
        }
        return result;
    }

    static List<Op> ops(String owner, Path file) throws IOException {
        List<Op> result = new ArrayList<>();
        for (String[] p : records(file)) {
            result.add(new Op(owner, p[0], Integer.parseInt(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3]), p[4],
                    Long.parseLong(p[5]), Long.parseLong(p[6])));
        }
        return result;
    }

    /** The space-separated fields of each non-blank line of {@code file}; none when a consumer never wrote it. */
    private static List<String[]> records(Path file) throws IOException {
        List<String[]> records = new ArrayList<>();
        if (!Files.exists(file)) {
            return records;
        }
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                records.add(line.split(" "));
            }
        }
        return records;
    }

    /** How often each offset was processed, over every consumer's file. */
    static TreeMap<Long, Integer> counts(List<List<Processed>> files) {
        TreeMap<Long, Integer> counts = new TreeMap<>();
        files.forEach(file -> file.forEach(p -> counts.merge(p.offset(), 1, Integer::sum)));
        return counts;
    }

    /** Each event carries the order id it was published with: {@code o<offset>}. */
    static List<String> payloadViolations(List<List<Processed>> files) {
        List<String> violations = new ArrayList<>();
        for (List<Processed> file : files) {
            for (Processed p : file) {
                if (!p.orderId().equals("o" + p.offset())) {
                    violations.add("offset " + p.offset() + " carried order_id " + p.orderId());
                }
            }
        }
        return violations;
    }

    /** Every offset of 1..n processed at least once, none outside it. */
    static List<String> coverageViolations(long n, TreeMap<Long, Integer> counts) {
        List<String> violations = new ArrayList<>();
        List<Long> skipped = new ArrayList<>();
        for (long offset = 1; offset <= n; offset++) {
            if (!counts.containsKey(offset)) {
                skipped.add(offset);
            }
        }
        if (!skipped.isEmpty()) {
            violations.add("skipped offsets (never processed by anyone): " + ranges(skipped));
        }
        List<Long> foreign = counts.keySet().stream().filter(o -> o < 1 || o > n).toList();
        if (!foreign.isEmpty()) {
            violations.add("processed offsets outside 1.." + n + ": " + ranges(foreign));
        }
        return violations;
    }

    /**
     * A consumer ({@code first}) halted between processing a batch and committing it, when the group's committed
     * offset was {@code committedAtCrash}; another ({@code second}) took over and ran to {@code n}. At least once and
     * nothing skipped: 1..n covered; every offset up to {@code committedAtCrash} processed exactly once; the batch the
     * first one processed but did not commit (its offsets above {@code committedAtCrash}) exists and was processed
     * again — exactly twice; the second one started exactly after {@code committedAtCrash}.
     */
    static List<String> crashViolations(long n, List<Processed> first, List<Processed> second, long committedAtCrash) {
        List<String> violations = new ArrayList<>(payloadViolations(List.of(first, second)));
        TreeMap<Long, Integer> counts = counts(List.of(first, second));
        violations.addAll(coverageViolations(n, counts));
        List<Long> notOnce = new ArrayList<>();
        for (long offset = 1; offset <= committedAtCrash; offset++) {
            if (counts.getOrDefault(offset, 0) != 1) {
                notOnce.add(offset);
            }
        }
        if (!notOnce.isEmpty()) {
            violations.add("offsets at or below the committed offset " + committedAtCrash
                    + " not processed exactly once: " + ranges(notOnce));
        }
        List<Long> uncommitted = first.stream().map(Processed::offset).filter(o -> o > committedAtCrash).distinct()
                .sorted().toList();
        if (uncommitted.isEmpty()) {
            violations.add("the halted consumer left no processed-but-uncommitted batch above the committed offset "
                    + committedAtCrash + ": no redelivery to prove");
        }
        List<Long> notTwice = uncommitted.stream().filter(o -> counts.get(o) != 2).toList();
        if (!notTwice.isEmpty()) {
            violations.add("offsets processed before the crash but not committed were not redelivered exactly once: "
                    + ranges(notTwice));
        }
        if (second.isEmpty() || second.get(0).offset() != committedAtCrash + 1) {
            violations.add("the second consumer did not resume right after the committed offset " + committedAtCrash
                    + ": it started at " + (second.isEmpty() ? "nothing" : second.get(0).offset()));
        }
        return violations;
    }

    /**
     * Fencing over recorded group operations: every token belongs to one owner; accepted commits, in the order the
     * server applied them (offsets only grow), have non-decreasing tokens — one holder's commits form one unbroken
     * run, never interleaved with another's; and in real time no commit with a lower token was accepted after it was
     * sent later than a higher token was granted or accepted a commit.
     */
    static List<String> commitOrderViolations(List<Op> ops) {
        List<String> violations = new ArrayList<>();
        Map<Long, Set<String>> owners = new TreeMap<>();
        for (Op op : ops) {
            if (op.grantedLease() || op.acceptedCommit()) {
                owners.computeIfAbsent(op.token(), t -> new TreeSet<>()).add(op.owner());
            }
        }
        owners.forEach((token, who) -> {
            if (who.size() > 1) {
                violations.add("token " + token + " was used by several owners: " + who);
            }
        });
        List<Op> commits = ops.stream().filter(Op::acceptedCommit)
                .sorted(Comparator.comparingLong(Op::value).thenComparingLong(Op::receivedMicros)).toList();
        for (int i = 1; i < commits.size(); i++) {
            Op before = commits.get(i - 1);
            Op after = commits.get(i);
            if (after.value() == before.value()) {
                violations.add("offset " + after.value() + " was committed twice: " + before + " and " + after);
            }
            if (after.token() < before.token()) {
                violations.add("a lower token committed after a higher one: " + before + " then " + after);
            }
        }
        List<Op> grants = ops.stream().filter(Op::grantedLease).toList();
        for (Op commit : commits) {
            for (Op grant : grants) {
                if (grant.token() > commit.token() && grant.receivedMicros() < commit.sentMicros()) {
                    violations.add(commit + " was accepted although it was sent after token " + grant.token()
                            + " had been granted to " + grant.owner());
                }
            }
            for (Op other : commits) {
                if (other.token() > commit.token() && other.receivedMicros() < commit.sentMicros()) {
                    violations.add(commit + " was accepted although it was sent after " + other + " was");
                }
            }
        }
        return violations;
    }

    /** Figures about a run: accepted commits per owner, refused commits by error, takeovers. */
    static Map<String, Object> figures(List<Op> ops) {
        Map<String, Object> figures = new TreeMap<>();
        Map<String, Integer> accepted = new TreeMap<>();
        Map<String, Integer> refused = new TreeMap<>();
        for (Op op : ops) {
            if (op.acceptedCommit()) {
                accepted.merge(op.owner(), 1, Integer::sum);
            } else if (op.op().equals("commit")) {
                refused.merge(op.error(), 1, Integer::sum);
            }
        }
        figures.put("accepted commits", accepted);
        figures.put("refused commits", refused);
        List<Op> commits = ops.stream().filter(Op::acceptedCommit).sorted(Comparator.comparingLong(Op::value))
                .toList();
        int handovers = 0;
        for (int i = 1; i < commits.size(); i++) {
            if (!commits.get(i).owner().equals(commits.get(i - 1).owner())) {
                handovers++;
            }
        }
        figures.put("handovers between owners", handovers);
        figures.put("tokens with commits", commits.stream().map(Op::token).distinct().count());
        Map<String, Integer> held = new HashMap<>();
        ops.stream().filter(op -> op.op().equals("lease") && op.status() == 409)
                .forEach(op -> held.merge(op.owner(), 1, Integer::sum));
        figures.put("lease_held answers", new TreeMap<>(held));
        return figures;
    }

    /** 1..20, 41, 60..62 */
    static String ranges(List<Long> offsets) {
        StringBuilder text = new StringBuilder();
        List<Long> sorted = offsets.stream().sorted().toList();
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(sorted.get(i));
            if (j > i) {
                text.append("..").append(sorted.get(j));
            }
            i = j + 1;
        }
        return text.toString();
    }
}
