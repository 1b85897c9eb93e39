package shop;

import dev.interlace.runtime.stream.StreamEvent;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import javax.annotation.processing.Generated;

/**
 * An event of stream {@code everything}, generated from {@link Everything}.
 *
 * <p>Components follow the declared columns:
 * {@code id string not null},
 * {@code note string},
 * {@code title string},
 * {@code quantity bigint not null},
 * {@code small bigint},
 * {@code medium bigint},
 * {@code large bigint},
 * {@code ratio double not null},
 * {@code score double},
 * {@code price decimal(12,2) not null},
 * {@code exact decimal(38,10)},
 * {@code paid boolean not null},
 * {@code gift boolean},
 * {@code at timestamp not null},
 * {@code day date},
 * {@code payload json},
 * {@code class string},
 * {@code hash_code bigint},
 * {@code errors string},
 * {@code seen boolean}.
 */
@Generated("dev.interlace.processor.InterlaceProcessor")
public record EverythingEvent(String id, String note, String title, long quantity, Long small, Long medium, Long large, double ratio, Double score, BigDecimal price, BigDecimal exact, boolean paid, Boolean gift, Instant at, LocalDate day, String payload, String class_, Long hashCode_, String errors, Boolean seen) implements StreamEvent {

    @Override
    public Object value(int index) {
        switch(index) {
            case 0:
                return id;
            case 1:
                return note;
            case 2:
                return title;
            case 3:
                return quantity;
            case 4:
                return small;
            case 5:
                return medium;
            case 6:
                return large;
            case 7:
                return ratio;
            case 8:
                return score;
            case 9:
                return price;
            case 10:
                return exact;
            case 11:
                return paid;
            case 12:
                return gift;
            case 13:
                return at;
            case 14:
                return day;
            case 15:
                return payload;
            case 16:
                return class_;
            case 17:
                return hashCode_;
            case 18:
                return errors;
            case 19:
                return seen;
            default:
                throw new IndexOutOfBoundsException("stream everything has 20 columns, not column " + index);
        }
    }
}
