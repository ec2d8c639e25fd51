package dev.idem.engine.internal.json;

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;

/**
 * Number canonicalization by exact decimal value. A JSON number literal denotes an exact
 * decimal; two literals are the same number exactly when their decimals are equal, so
 * {@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are one number and
 * {@code 1.000000000000000001} is another. The canonical text is the literal's significant
 * digits (no leading or trailing zeros) in the ECMAScript Number::toString layout (plain up
 * to 21 integer digits, {@code 0.000ddd} down to 1e-6, otherwise {@code d.ddde+x}).
 *
 * <p>That layout is the one RFC 8785 uses for doubles, and it is applied to the literal's own
 * digits, never to a double nearest to them. So wherever the literal is the shortest
 * round-trip form of a double (every number an ECMAScript or Jackson serializer writes) the
 * output is byte-exact RFC 8785; for any other literal (more digits than the nearest double
 * keeps, such as {@code 333333333.33333329} or {@code 9007199254740993.5}) RFC 8785 would
 * print the nearest double and make distinct amounts collide, and we print the exact digits
 * instead. The mapping is one-to-one on exact values, and the output is its own canonical
 * form. No number is rejected for its magnitude; an exponent of ten digits or more is.
 */
final class Es6Numbers {
    private Es6Numbers() {
    }

    /** Appends the canonical form of the JSON number {@code text} to {@code out}. */
    static void write(String text, ByteSink out) {
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        write(ascii, 0, ascii.length, out);
    }

    /**
     * Appends the canonical form of the JSON number literal {@code s[from, to)} to {@code out},
     * without allocating: the significant digits are copied straight from the literal.
     */
    static void write(byte[] s, int from, int to, ByteSink out) {
        int i = from;
        boolean negative = false;
        if (i < to && s[i] == '-') {
            negative = true;
            i++;
        }
        int intStart = i;
        while (i < to && isDigit(s[i])) {
            i++;
        }
        int intLen = i - intStart;
        int fracStart = i;
        int fracLen = 0;
        if (i < to && s[i] == '.') {
            fracStart = ++i;
            while (i < to && isDigit(s[i])) {
                i++;
            }
            fracLen = i - fracStart;
        }
        long exponent = 0;
        if (i < to && (s[i] == 'e' || s[i] == 'E')) {
            i++;
            boolean expNegative = false;
            if (i < to && (s[i] == '+' || s[i] == '-')) {
                expNegative = s[i] == '-';
                i++;
            }
            int expStart = i;
            while (i < to && isDigit(s[i])) {
                if (i - expStart >= 9) {
                    throw new InvalidRequestException("request JSON number exponent out of range: "
                            + abbreviate(s, from, to));
                }
                exponent = exponent * 10 + (s[i++] - '0');
            }
            if (expNegative) {
                exponent = -exponent;
            }
        }
        int count = intLen + fracLen;
        if (i != to || count == 0) {
            throw new InvalidRequestException("request JSON has an invalid number: " + abbreviate(s, from, to));
        }
        // The digits of the integer part and of the fraction, read as one sequence 0..count.
        int lead = 0;
        while (lead < count && digitAt(s, intStart, intLen, fracStart, lead) == '0') {
            lead++;
        }
        if (lead == count) {
            out.write('0');
            return;
        }
        int trail = count;
        while (digitAt(s, intStart, intLen, fracStart, trail - 1) == '0') {
            trail--;
        }
        if (negative) {
            out.write('-');
        }
        // value = 0.significant x 10^point, exactly
        layout(s, intStart, intLen, fracStart, lead, trail, intLen - lead + exponent, out);
    }

    private static byte digitAt(byte[] s, int intStart, int intLen, int fracStart, int k) {
        return k < intLen ? s[intStart + k] : s[fracStart + k - intLen];
    }

    /**
     * The canonical text of a finite double: the RFC 8785 form (ECMAScript shortest
     * round-trip digits), which is also its canonical form as a literal.
     */
    static String doubleToString(double d) {
        ByteSink out = new ByteSink(32);
        writeDouble(d, out);
        return new String(out.array(), 0, out.size(), StandardCharsets.US_ASCII);
    }

    /** Appends the RFC 8785 form of a finite double. */
    static void writeDouble(double d, ByteSink out) {
        if (d == 0) {
            out.write('0');
            return;
        }
        String java = DoubleToDecimal.toString(d);
        int i = 0;
        if (java.charAt(0) == '-') {
            out.write('-');
            i = 1;
        }
        // Java form: d.ddd or d.dddE[-]x, with at least one digit after the point.
        int e = java.indexOf('E');
        String mantissa = e < 0 ? java.substring(i) : java.substring(i, e);
        int exp = e < 0 ? 0 : Integer.parseInt(java.substring(e + 1));
        int dot = mantissa.indexOf('.');
        String all = mantissa.substring(0, dot) + mantissa.substring(dot + 1);
        int point = dot + exp;
        int lead = 0;
        while (all.charAt(lead) == '0') {
            lead++;
        }
        int trail = all.length();
        while (all.charAt(trail - 1) == '0') {
            trail--;
        }
        String digits = all.substring(lead, trail);
        long n = point - lead;
        if (digits.length() == 2) {
            // Java prints at least two significant digits (4.9E-324) where ECMAScript wants the
            // shortest (5e-324): try the one-digit neighbours and keep the closest that round-trips.
            String shorter = oneDigit(d, digits, n);
            if (shorter != null) {
                if (shorter.charAt(0) == '1' && digits.charAt(0) == '9') {
                    n++;
                }
                digits = shorter;
            }
        }
        byte[] ascii = digits.getBytes(StandardCharsets.US_ASCII);
        layout(ascii, 0, ascii.length, 0, 0, ascii.length, n, out);
    }

    private static String oneDigit(double d, String two, long n) {
        int first = two.charAt(0) - '0';
        java.math.BigDecimal exact = new java.math.BigDecimal(Math.abs(d));
        String best = null;
        java.math.BigDecimal bestDistance = null;
        for (int candidate = first; candidate <= first + 1; candidate++) {
            String digit = candidate == 10 ? "1" : Integer.toString(candidate);
            long exp = candidate == 10 ? n : n - 1;
            java.math.BigDecimal value = new java.math.BigDecimal(digit + "E" + exp);
            if (Double.parseDouble(digit + "E" + exp) != Math.abs(d)) {
                continue;
            }
            java.math.BigDecimal distance = value.subtract(exact).abs();
            if (bestDistance == null || distance.compareTo(bestDistance) < 0) {
                best = digit;
                bestDistance = distance;
            }
        }
        return best;
    }

    /**
     * Writes the significant digits {@code [lead, trail)} of the sequence made of the integer
     * digits {@code s[intStart, intStart+intLen)} followed by the fraction digits from
     * {@code fracStart}, whose value is 0.digits x 10^n, in the ECMAScript Number::toString
     * layout.
     */
    private static void layout(byte[] s, int intStart, int intLen, int fracStart, int lead, int trail, long n,
            ByteSink out) {
        int k = trail - lead;
        if (k <= n && n <= 21) {
            copy(s, intStart, intLen, fracStart, lead, trail, out);
            for (long z = n - k; z > 0; z--) {
                out.write('0');
            }
        } else if (0 < n && n <= 21) {
            copy(s, intStart, intLen, fracStart, lead, lead + (int) n, out);
            out.write('.');
            copy(s, intStart, intLen, fracStart, lead + (int) n, trail, out);
        } else if (-6 < n && n <= 0) {
            out.write('0');
            out.write('.');
            for (long z = -n; z > 0; z--) {
                out.write('0');
            }
            copy(s, intStart, intLen, fracStart, lead, trail, out);
        } else {
            copy(s, intStart, intLen, fracStart, lead, lead + 1, out);
            if (k > 1) {
                out.write('.');
                copy(s, intStart, intLen, fracStart, lead + 1, trail, out);
            }
            out.write('e');
            long e = n - 1;
            out.write(e < 0 ? '-' : '+');
            out.writeDecimal(Math.abs(e));
        }
    }

    private static void copy(byte[] s, int intStart, int intLen, int fracStart, int from, int to, ByteSink out) {
        if (from < intLen) {
            int stop = Math.min(to, intLen);
            out.write(s, intStart + from, stop - from);
            from = stop;
        }
        if (from < to) {
            out.write(s, fracStart + from - intLen, to - from);
        }
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static String abbreviate(byte[] s, int from, int to) {
        String text = new String(s, from, Math.min(to - from, 40), StandardCharsets.ISO_8859_1);
        return to - from <= 40 ? text : text.substring(0, 37) + "...";
    }
}
