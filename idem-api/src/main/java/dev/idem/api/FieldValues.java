package dev.idem.api;

/** What the HTTP header parsers of this package share. */
final class FieldValues {
    private FieldValues() {
    }

    /** {@code value} without the optional whitespace (spaces and tabs, RFC 9110 OWS) around it. */
    static String trimOws(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return value.substring(start, end);
    }
}
