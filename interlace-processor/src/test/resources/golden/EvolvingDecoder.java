package shop;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.EventDecoder;
import dev.interlace.runtime.stream.FieldErrors;
import dev.interlace.runtime.stream.Values;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.processing.Generated;

/**
 * Decodes events of stream {@code evolving} into {@link EvolvingEvent}, applying the decoding rule of each column's type and the stream's drift policy (evolve).
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public final class EvolvingDecoder implements EventDecoder<EvolvingEvent> {

    /**
     * The declared columns, in order.
     */
    private static final List<String> COLUMNS = List.of("device_id");

    @Override
    public DecodeResult<EvolvingEvent> decode(JsonParser parser) throws IOException {
        FieldErrors errors = new FieldErrors();
        boolean[] seen = new boolean[1];
        Map<String, String> undeclared = new LinkedHashMap<>();
        String deviceId = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch(field) {
                case "device_id":
                    Values.requireFirst(parser, field, seen[0]);
                    seen[0] = true;
                    deviceId = Values.readString(parser, field, true, errors);
                    break;
                default:
                    Values.evolving(parser, field, undeclared, COLUMNS, errors);
            }
        }
        if (!seen[0]) {
            Values.missing("device_id", errors);
        }
        if (!errors.isEmpty()) {
            return new DecodeResult.Invalid<>(errors.list(), errors.count());
        }
        return new DecodeResult.Valid<>(new EvolvingEvent(deviceId), undeclared);
    }
}
