package dev.idem.engine.internal;

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import dev.idem.api.InvalidRequestException;

/**
 * Number canonicalization. RFC 8785 prints every number as the ECMAScript
 * Number.prototype.toString of the nearest IEEE-754 double. We follow it with one rule
 * added so that integers never collide with their rounded neighbours:
 *
 * <ul>
 *   <li>An integer-valued number (whatever its spelling: {@code 10}, {@code 10.0},
 *       {@code 1e1}) is printed exactly, digit for digit, in the ECMAScript layout. For
 *       integers up to 2^53 this is byte-identical to RFC 8785; beyond it (64-bit ids,
 *       amounts in minor units) no precision is lost, so {@code 9007199254740993} and
 *       {@code 9007199254740992} stay different.</li>
 *   <li>Any other number is converted to the nearest double and printed as RFC 8785 says,
 *       with the shortest round-trip digits (Schubfach, since JDK 17's Double.toString is
 *       not always shortest). Non-integers beyond double precision therefore compare as
 *       doubles; send such values as strings.</li>
 * </ul>
 * A non-integer that overflows a double is rejected.
 */
final class Es6Numbers {
    private Es6Numbers() {
    }

    /** Appends the canonical form of the JSON number {@code text} to {@code out}. */
    static void write(String text, ByteSink out) {
        int len = text.length();
        int i = 0;
        boolean negative = false;
        if (i < len && text.charAt(i) == '-') {
            negative = true;
            i++;
        }
        StringBuilder digits = new StringBuilder(len);
        int intDigits = 0;
        while (i < len && isDigit(text.charAt(i))) {
            digits.append(text.charAt(i++));
            intDigits++;
        }
        if (i < len && text.charAt(i) == '.') {
            i++;
            while (i < len && isDigit(text.charAt(i))) {
                digits.append(text.charAt(i++));
            }
        }
        long exponent = 0;
        if (i < len && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            boolean expNegative = false;
            if (i < len && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                expNegative = text.charAt(i) == '-';
                i++;
            }
            int expStart = i;
            while (i < len && isDigit(text.charAt(i))) {
                if (i - expStart >= 9) {
                    throw new InvalidRequestException("request JSON number exponent out of range: " + abbreviate(text));
                }
                exponent = exponent * 10 + (text.charAt(i++) - '0');
            }
            if (expNegative) {
                exponent = -exponent;
            }
        }
        if (i != len || digits.length() == 0) {
            throw new InvalidRequestException("request JSON has an invalid number: " + abbreviate(text));
        }
        int lead = 0;
        while (lead < digits.length() && digits.charAt(lead) == '0') {
            lead++;
        }
        if (lead == digits.length()) {
            out.write('0');
            return;
        }
        int trail = digits.length();
        while (digits.charAt(trail - 1) == '0') {
            trail--;
        }
        String significant = digits.substring(lead, trail);
        // value = 0.significant x 10^point
        long point = intDigits - lead + exponent;
        int k = significant.length();
        if (point >= k) {
            if (negative) {
                out.write('-');
            }
            layout(significant, point, out);
            return;
        }
        double d = Double.parseDouble(text);
        if (Double.isInfinite(d)) {
            throw new InvalidRequestException("request JSON number out of the range of a double: " + abbreviate(text));
        }
        writeDouble(d, out);
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
        layout(digits, n, out);
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

    // ECMAScript Number::toString layout for digits s (no leading/trailing zeros), value 0.s x 10^n.
    private static void layout(String s, long n, ByteSink out) {
        int k = s.length();
        if (k <= n && n <= 21) {
            out.writeAscii(s);
            for (long z = n - k; z > 0; z--) {
                out.write('0');
            }
        } else if (0 < n && n <= 21) {
            out.writeAscii(s.substring(0, (int) n));
            out.write('.');
            out.writeAscii(s.substring((int) n));
        } else if (-6 < n && n <= 0) {
            out.writeAscii("0.");
            for (long z = -n; z > 0; z--) {
                out.write('0');
            }
            out.writeAscii(s);
        } else {
            out.write(s.charAt(0));
            if (k > 1) {
                out.write('.');
                out.writeAscii(s.substring(1));
            }
            out.write('e');
            long e = n - 1;
            out.write(e < 0 ? '-' : '+');
            out.writeAscii(Long.toString(Math.abs(e)));
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}
