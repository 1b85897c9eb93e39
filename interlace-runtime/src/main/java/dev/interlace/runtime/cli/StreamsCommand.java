package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.stream.Column;
import dev.interlace.runtime.stream.StreamCatalog;
import dev.interlace.runtime.stream.StreamDescriptor;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.Locale;

/** {@code interlace streams}: the streams compiled into the application and their schemas. */
final class StreamsCommand extends Command {

    StreamsCommand() {
        super("streams", "[--json]", "list the declared streams and their schemas");
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        Arguments arguments = Arguments.parse(args, null, Set.of("--json"), Set.of());
        if (!arguments.positionals().isEmpty()) {
            throw new UsageException("unexpected argument \"" + arguments.positionals().get(0) + "\"");
        }
        boolean json = arguments.flag("--json");
        StreamCatalog catalog = StreamCatalog.load(Thread.currentThread().getContextClassLoader());
        if (json) {
            printJson(catalog, out);
        } else {
            printTable(catalog, out);
        }
        return 0;
    }

    private static void printTable(StreamCatalog catalog, PrintStream out) {
        if (catalog.streams().isEmpty()) {
            out.println("no streams declared (annotate a class with @Stream and compile it with interlace-processor)");
            return;
        }
        boolean first = true;
        for (StreamDescriptor stream : catalog.streams()) {
            if (!first) {
                out.println();
            }
            first = false;
            out.println(stream.name() + "  (" + stream.declaredBy() + ", table " + stream.table() + ")");
            int width = stream.columns().stream().mapToInt(c -> c.name().length()).max().orElse(0);
            for (Column column : stream.columns()) {
                String marker = column.name().equals(stream.idempotencyKey()) ? "   <- idempotency key" : "";
                out.printf("  %-" + width + "s  %s%s%n", column.name(), column.canonicalTypeWithNullability(), marker);
            }
            out.println("  retention: " + (stream.retention() == null ? "forever" : stream.retention())
                    + "   on schema drift: " + stream.onSchemaDrift().name().toLowerCase(Locale.ROOT)
                    + "   schema version: " + stream.schemaVersion());
        }
    }

    private static void printJson(StreamCatalog catalog, PrintStream out) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        ArrayNode streams = root.putArray("streams");
        for (StreamDescriptor stream : catalog.streams()) {
            ObjectNode node = streams.addObject();
            node.put("name", stream.name());
            node.put("table", stream.table());
            stream.describeInto(node);
            node.put("declared_by", stream.declaredBy());
        }
        root.put("count", catalog.streams().size());
        root.put("total", catalog.streams().size());
        out.println(TerminalText.prettyJson(root));
    }
}
