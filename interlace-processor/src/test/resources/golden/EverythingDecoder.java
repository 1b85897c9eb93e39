package shop;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.interlace.runtime.stream.DecodeResult;
import dev.interlace.runtime.stream.EventDecoder;
import dev.interlace.runtime.stream.FieldErrors;
import dev.interlace.runtime.stream.Values;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.Generated;

/**
 * Decodes events of stream {@code everything} into {@link EverythingEvent}, applying the decoding rule of each column's type and the stream's drift policy (quarantine).
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public final class EverythingDecoder implements EventDecoder<EverythingEvent> {

    /**
     * The declared columns, in order.
     */
    private static final List<String> COLUMNS = List.of("id", "note", "title", "quantity", "small", "medium", "large", "ratio", "score", "price", "exact", "paid", "gift", "at", "day", "payload", "class", "hash_code", "errors", "seen");

    @Override
    public DecodeResult<EverythingEvent> decode(JsonParser parser) throws IOException {
        FieldErrors errors = new FieldErrors();
        boolean[] seen = new boolean[20];
        Set<String> undeclared = new HashSet<>();
        String id = null;
        String note = null;
        String title = null;
        Long quantity = null;
        Long small = null;
        Long medium = null;
        Long large = null;
        Double ratio = null;
        Double score = null;
        BigDecimal price = null;
        BigDecimal exact = null;
        Boolean paid = null;
        Boolean gift = null;
        Instant at = null;
        LocalDate day = null;
        String payload = null;
        String class_ = null;
        Long hashCode_ = null;
        String errors_ = null;
        Boolean seen_ = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch(field) {
                case "id":
                    Values.requireFirst(parser, field, seen[0]);
                    seen[0] = true;
                    id = Values.readString(parser, field, true, errors);
                    break;
                case "note":
                    Values.requireFirst(parser, field, seen[1]);
                    seen[1] = true;
                    note = Values.readString(parser, field, false, errors);
                    break;
                case "title":
                    Values.requireFirst(parser, field, seen[2]);
                    seen[2] = true;
                    title = Values.readString(parser, field, false, errors);
                    break;
                case "quantity":
                    Values.requireFirst(parser, field, seen[3]);
                    seen[3] = true;
                    quantity = Values.readBigint(parser, field, true, errors);
                    break;
                case "small":
                    Values.requireFirst(parser, field, seen[4]);
                    seen[4] = true;
                    small = Values.readBigint(parser, field, false, errors);
                    break;
                case "medium":
                    Values.requireFirst(parser, field, seen[5]);
                    seen[5] = true;
                    medium = Values.readBigint(parser, field, false, errors);
                    break;
                case "large":
                    Values.requireFirst(parser, field, seen[6]);
                    seen[6] = true;
                    large = Values.readBigint(parser, field, false, errors);
                    break;
                case "ratio":
                    Values.requireFirst(parser, field, seen[7]);
                    seen[7] = true;
                    ratio = Values.readDouble(parser, field, true, errors);
                    break;
                case "score":
                    Values.requireFirst(parser, field, seen[8]);
                    seen[8] = true;
                    score = Values.readDouble(parser, field, false, errors);
                    break;
                case "price":
                    Values.requireFirst(parser, field, seen[9]);
                    seen[9] = true;
                    price = Values.readDecimal(parser, field, 12, 2, true, errors);
                    break;
                case "exact":
                    Values.requireFirst(parser, field, seen[10]);
                    seen[10] = true;
                    exact = Values.readDecimal(parser, field, 38, 10, false, errors);
                    break;
                case "paid":
                    Values.requireFirst(parser, field, seen[11]);
                    seen[11] = true;
                    paid = Values.readBoolean(parser, field, true, errors);
                    break;
                case "gift":
                    Values.requireFirst(parser, field, seen[12]);
                    seen[12] = true;
                    gift = Values.readBoolean(parser, field, false, errors);
                    break;
                case "at":
                    Values.requireFirst(parser, field, seen[13]);
                    seen[13] = true;
                    at = Values.readTimestamp(parser, field, true, errors);
                    break;
                case "day":
                    Values.requireFirst(parser, field, seen[14]);
                    seen[14] = true;
                    day = Values.readDate(parser, field, false, errors);
                    break;
                case "payload":
                    Values.requireFirst(parser, field, seen[15]);
                    seen[15] = true;
                    payload = Values.readJson(parser, field, false, errors);
                    break;
                case "class":
                    Values.requireFirst(parser, field, seen[16]);
                    seen[16] = true;
                    class_ = Values.readString(parser, field, false, errors);
                    break;
                case "hash_code":
                    Values.requireFirst(parser, field, seen[17]);
                    seen[17] = true;
                    hashCode_ = Values.readBigint(parser, field, false, errors);
                    break;
                case "errors":
                    Values.requireFirst(parser, field, seen[18]);
                    seen[18] = true;
                    errors_ = Values.readString(parser, field, false, errors);
                    break;
                case "seen":
                    Values.requireFirst(parser, field, seen[19]);
                    seen[19] = true;
                    seen_ = Values.readBoolean(parser, field, false, errors);
                    break;
                default:
                    Values.undeclared(parser, field, undeclared, COLUMNS, errors);
            }
        }
        if (!seen[0]) {
            Values.missing("id", errors);
        }
        if (!seen[3]) {
            Values.missing("quantity", errors);
        }
        if (!seen[7]) {
            Values.missing("ratio", errors);
        }
        if (!seen[9]) {
            Values.missing("price", errors);
        }
        if (!seen[11]) {
            Values.missing("paid", errors);
        }
        if (!seen[13]) {
            Values.missing("at", errors);
        }
        if (!errors.isEmpty()) {
            return new DecodeResult.Invalid<>(errors.list(), errors.count());
        }
        return new DecodeResult.Valid<>(new EverythingEvent(id, note, title, quantity, small, medium, large, ratio, score, price, exact, paid, gift, at, day, payload, class_, hashCode_, errors_, seen_), Map.of());
    }
}
