package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The IEEE-754 test vectors of RFC 8785 Appendix B. */
class Es6NumbersTest {

    @ParameterizedTest
    @CsvSource({
            "0000000000000000,0", "8000000000000000,0", "0000000000000001,5e-324", "8000000000000001,-5e-324",
            "7fefffffffffffff,1.7976931348623157e+308", "ffefffffffffffff,-1.7976931348623157e+308",
            "4340000000000000,9007199254740992", "c340000000000000,-9007199254740992",
            "4430000000000000,295147905179352830000", "44b52d02c7e14af5,9.999999999999997e+22",
            "44b52d02c7e14af6,1e+23", "44b52d02c7e14af7,1.0000000000000001e+23",
            "444b1ae4d6e2ef4e,999999999999999700000", "444b1ae4d6e2ef4f,999999999999999900000",
            "444b1ae4d6e2ef50,1e+21", "3eb0c6f7a0b5ed8c,9.999999999999997e-7", "3eb0c6f7a0b5ed8d,0.000001",
            "41b3de4355555553,333333333.3333332", "41b3de4355555554,333333333.33333325",
            "41b3de4355555555,333333333.3333333", "41b3de4355555556,333333333.3333334",
            "41b3de4355555557,333333333.33333343", "becbf647612f3696,-0.0000033333333333333333",
            "43143ff3c1cb0959,1424953923781206.2"})
    void doublesPrintAsRfc8785Says(String hexBits, String expected) {
        double d = Double.longBitsToDouble(Long.parseUnsignedLong(hexBits, 16));
        ByteSink out = new ByteSink(32);
        Es6Numbers.writeDouble(d, out);
        assertThat(new String(out.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo(expected);

        // The printed form is itself canonical, whichever of our two rules applies to it.
        ByteSink again = new ByteSink(32);
        Es6Numbers.write(expected, again);
        assertThat(new String(again.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo(expected);
    }
}
